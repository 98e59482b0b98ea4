package native

import (
	"slices"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// aggregateTyped replaces obj's status, a typed S, with merged() once add
// has seen the status of every member that has one; obj itself when that
// changes nothing.
func aggregateTyped[S any](obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem,
	add func(item *workv1alpha2.AggregatedStatusItem, member *S), merged func() S) (*unstructured.Unstructured, error) {
	var current S
	if err := fromNested(obj, &current, "status"); err != nil {
		return nil, err
	}
	if err := decodeEach(items, add); err != nil {
		return nil, err
	}
	return replaceStatus(obj, &current, merged())
}

// replaceStatus returns obj itself when its status, current, already
// equals status, else obj with status (converted) as its .status.
func replaceStatus[S any](obj *unstructured.Unstructured, current *S, status S) (*unstructured.Unstructured, error) {
	if equality.Semantic.DeepEqual(*current, status) {
		return obj, nil
	}
	return withTypedStatus(obj, &status)
}

// withTypedStatus is obj with status, a typed status, as its .status.
func withTypedStatus(obj *unstructured.Unstructured, status any) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(status)
	if err != nil {
		return nil, err
	}
	return withStatus(obj, m), nil
}

// Phase priorities: the first phase some member is in wins.
var (
	podPhasePriority = []corev1.PodPhase{corev1.PodFailed, corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded}
	pvPhasePriority  = []corev1.PersistentVolumePhase{corev1.VolumeFailed, corev1.VolumePending,
		corev1.VolumeAvailable, corev1.VolumeBound, corev1.VolumeReleased}
)

// firstPresent is the first of priority present in phases, or "".
func firstPresent[P comparable](priority, phases []P) P {
	for _, p := range priority {
		if slices.Contains(phases, p) {
			return p
		}
	}
	var none P
	return none
}

// aggregatePod merges member pods: the most significant phase (an item
// without status counts as Pending) and every container's readiness and
// state. A nil item list returns the normalized template unchanged.
func aggregatePod(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var current corev1.PodStatus
	if err := fromNested(obj, &current, "status"); err != nil {
		return nil, err
	}
	if items == nil {
		// Karmada's answer is the normalized Pod: the one case converted whole.
		var pod corev1.Pod
		if err := toTyped(obj, &pod); err != nil {
			return nil, err
		}
		return toUnstructured(&pod)
	}
	status := corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{}}
	var phases []corev1.PodPhase
	for i := range items {
		if items[i].Status == nil {
			phases = append(phases, corev1.PodPending)
		}
	}
	err := decodeEach(items, func(_ *workv1alpha2.AggregatedStatusItem, m *corev1.PodStatus) {
		phases = append(phases, m.Phase)
		status.ContainerStatuses = appendReadyAndState(status.ContainerStatuses, m.ContainerStatuses)
		status.InitContainerStatuses = appendReadyAndState(status.InitContainerStatuses, m.InitContainerStatuses)
	})
	if err != nil {
		return nil, err
	}
	status.Phase = firstPresent(podPhasePriority, phases)
	return replaceStatus(obj, &current, status)
}

// appendReadyAndState keeps only the readiness and state of containers.
func appendReadyAndState(dst, src []corev1.ContainerStatus) []corev1.ContainerStatus {
	for _, c := range src {
		dst = append(dst, corev1.ContainerStatus{Ready: c.Ready, State: c.State})
	}
	return dst
}

// aggregatePersistentVolume keeps the most significant phase (an item
// without status counts as Pending).
func aggregatePersistentVolume(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var phases []corev1.PersistentVolumePhase
	for i := range items {
		if items[i].Status == nil {
			phases = append(phases, corev1.VolumePending)
		}
	}
	return aggregateTyped(obj, items, func(_ *workv1alpha2.AggregatedStatusItem, m *corev1.PersistentVolumeStatus) {
		phases = append(phases, m.Phase)
	}, func() corev1.PersistentVolumeStatus {
		return corev1.PersistentVolumeStatus{Phase: firstPresent(pvPhasePriority, phases)}
	})
}

// aggregatePersistentVolumeClaim: Bound unless a member is not; Lost wins
// outright, otherwise the last non-Bound phase.
func aggregatePersistentVolumeClaim(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	status := corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}
	return aggregateTyped(obj, items, func(_ *workv1alpha2.AggregatedStatusItem, m *corev1.PersistentVolumeClaimStatus) {
		if status.Phase != corev1.ClaimLost && m.Phase != corev1.ClaimBound {
			status.Phase = m.Phase
		}
	}, func() corev1.PersistentVolumeClaimStatus { return status })
}

// aggregatePodDisruptionBudget sums the counters and merges the disrupted
// pods under "<cluster>/<pod>" keys.
func aggregatePodDisruptionBudget(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var status policyv1.PodDisruptionBudgetStatus
	return aggregateTyped(obj, items, func(item *workv1alpha2.AggregatedStatusItem, m *policyv1.PodDisruptionBudgetStatus) {
		status.CurrentHealthy += m.CurrentHealthy
		status.DesiredHealthy += m.DesiredHealthy
		status.ExpectedPods += m.ExpectedPods
		status.DisruptionsAllowed += m.DisruptionsAllowed
		for pod, at := range m.DisruptedPods {
			if status.DisruptedPods == nil {
				status.DisruptedPods = map[string]metav1.Time{}
			}
			status.DisruptedPods[item.ClusterName+"/"+pod] = at
		}
	}, func() policyv1.PodDisruptionBudgetStatus { return status })
}

// aggregateHorizontalPodAutoscaler sums current and desired replicas.
func aggregateHorizontalPodAutoscaler(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var status autoscalingv2.HorizontalPodAutoscalerStatus
	return aggregateTyped(obj, items, func(_ *workv1alpha2.AggregatedStatusItem, m *autoscalingv2.HorizontalPodAutoscalerStatus) {
		status.CurrentReplicas += m.CurrentReplicas
		status.DesiredReplicas += m.DesiredReplicas
	}, func() autoscalingv2.HorizontalPodAutoscalerStatus { return status })
}
