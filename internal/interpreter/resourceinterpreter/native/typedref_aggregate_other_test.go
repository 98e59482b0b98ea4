package native_test

import (
	"slices"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Unchanged since the typed implementation: production code serves as
// the reference (export_test.go).
var (
	appendReadyAndState = native.AppendReadyAndState
)

// replaceStatus converts obj to T and, unless its status already equals
// status, returns the normalized object with the status replaced.
func replaceStatus[T, S any](obj *unstructured.Unstructured, typed *T, current *S, status S) (*unstructured.Unstructured, error) {
	if equality.Semantic.DeepEqual(*current, status) {
		return obj, nil
	}
	*current = status
	return toUnstructured(typed)
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
	var pod corev1.Pod
	if err := toTyped(obj, &pod); err != nil {
		return nil, err
	}
	if items == nil {
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
	return replaceStatus(obj, &pod, &pod.Status, status)
}

// aggregatePersistentVolume keeps the most significant phase (an item
// without status counts as Pending).
func aggregatePersistentVolume(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var pv corev1.PersistentVolume
	if err := toTyped(obj, &pv); err != nil {
		return nil, err
	}
	var phases []corev1.PersistentVolumePhase
	for i := range items {
		if items[i].Status == nil {
			phases = append(phases, corev1.VolumePending)
		}
	}
	err := decodeEach(items, func(_ *workv1alpha2.AggregatedStatusItem, m *corev1.PersistentVolumeStatus) {
		phases = append(phases, m.Phase)
	})
	if err != nil {
		return nil, err
	}
	return replaceStatus(obj, &pv, &pv.Status, corev1.PersistentVolumeStatus{Phase: firstPresent(pvPhasePriority, phases)})
}

// aggregatePersistentVolumeClaim: Bound unless a member is not; Lost wins
// outright, otherwise the last non-Bound phase.
func aggregatePersistentVolumeClaim(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var pvc corev1.PersistentVolumeClaim
	if err := toTyped(obj, &pvc); err != nil {
		return nil, err
	}
	phase := corev1.ClaimBound
	err := decodeEach(items, func(_ *workv1alpha2.AggregatedStatusItem, m *corev1.PersistentVolumeClaimStatus) {
		if phase != corev1.ClaimLost && m.Phase != corev1.ClaimBound {
			phase = m.Phase
		}
	})
	if err != nil {
		return nil, err
	}
	return replaceStatus(obj, &pvc, &pvc.Status, corev1.PersistentVolumeClaimStatus{Phase: phase})
}

// aggregatePodDisruptionBudget sums the counters and merges the disrupted
// pods under "<cluster>/<pod>" keys.
func aggregatePodDisruptionBudget(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var pdb policyv1.PodDisruptionBudget
	if err := toTyped(obj, &pdb); err != nil {
		return nil, err
	}
	var status policyv1.PodDisruptionBudgetStatus
	err := decodeEach(items, func(item *workv1alpha2.AggregatedStatusItem, m *policyv1.PodDisruptionBudgetStatus) {
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
	})
	if err != nil {
		return nil, err
	}
	return replaceStatus(obj, &pdb, &pdb.Status, status)
}

// aggregateHorizontalPodAutoscaler sums current and desired replicas.
func aggregateHorizontalPodAutoscaler(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var hpa autoscalingv2.HorizontalPodAutoscaler
	if err := toTyped(obj, &hpa); err != nil {
		return nil, err
	}
	var status autoscalingv2.HorizontalPodAutoscalerStatus
	err := decodeEach(items, func(_ *workv1alpha2.AggregatedStatusItem, m *autoscalingv2.HorizontalPodAutoscalerStatus) {
		status.CurrentReplicas += m.CurrentReplicas
		status.DesiredReplicas += m.DesiredReplicas
	})
	if err != nil {
		return nil, err
	}
	return replaceStatus(obj, &hpa, &hpa.Status, status)
}
