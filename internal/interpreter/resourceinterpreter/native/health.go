package native

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// replicaStatus is what health reads of a workload: spec.replicas (nil
// when absent) and the listed .status integers.
func replicaStatus(obj *unstructured.Unstructured, fields ...string) (*int32, [3]int64, error) {
	var values [3]int64
	spec, err := mapAt(obj.Object, "spec")
	if err != nil {
		return nil, values, err
	}
	var replicas *int32
	if spec["replicas"] != nil {
		n, err := int32Field(spec, "replicas")
		if err != nil {
			return nil, values, at(err, "spec")
		}
		replicas = &n
	}
	if err := statusInts(obj, fields, values[:]); err != nil {
		return nil, values, err
	}
	return replicas, values, nil
}

// statusInts reads the listed .status integers into values.
func statusInts(obj *unstructured.Unstructured, fields []string, values []int64) error {
	status, err := mapAt(obj.Object, "status")
	if err != nil {
		return err
	}
	return statusFields(status, fields, values)
}

// statusFields reads the listed integers of a .status map into values:
// observedGeneration as an int64, the others as int32.
func statusFields(status map[string]interface{}, fields []string, values []int64) error {
	var err error
	for i, field := range fields {
		if field == "observedGeneration" {
			values[i], err = int64Field(status, field)
		} else {
			var n int32
			n, err = int32Field(status, field)
			values[i] = int64(n)
		}
		if err != nil {
			return at(err, "status")
		}
	}
	return nil
}

// rolledOut: the controller saw the latest spec, every wanted replica is
// updated and every updated replica is available.
func rolledOut(obj *unstructured.Unstructured, replicas *int32, observedGeneration int64, updated, available int64) bool {
	return observedGeneration == obj.GetGeneration() &&
		(replicas == nil || updated >= int64(*replicas)) &&
		available >= updated
}

func deploymentHealthy(obj *unstructured.Unstructured) (bool, error) {
	replicas, s, err := replicaStatus(obj, "observedGeneration", "updatedReplicas", "availableReplicas")
	if err != nil {
		return false, err
	}
	return rolledOut(obj, replicas, s[0], s[1], s[2]), nil
}

func statefulSetHealthy(obj *unstructured.Unstructured) (bool, error) {
	replicas, s, err := replicaStatus(obj, "observedGeneration", "updatedReplicas", "availableReplicas")
	if err != nil {
		return false, err
	}
	return rolledOut(obj, replicas, s[0], s[1], s[2]), nil
}

func replicaSetHealthy(obj *unstructured.Unstructured) (bool, error) {
	replicas, s, err := replicaStatus(obj, "observedGeneration", "availableReplicas")
	if err != nil {
		return false, err
	}
	return s[0] == obj.GetGeneration() && (replicas == nil || s[1] >= int64(*replicas)), nil
}

func daemonSetHealthy(obj *unstructured.Unstructured) (bool, error) {
	var s [4]int64
	err := statusInts(obj, []string{"observedGeneration", "desiredNumberScheduled", "updatedNumberScheduled", "numberAvailable"}, s[:])
	if err != nil {
		return false, err
	}
	return s[0] == obj.GetGeneration() && s[2] >= s[1] && s[3] >= s[2], nil
}

// serviceHealthy: any Service but a LoadBalancer is healthy; a LoadBalancer
// needs an ingress point.
func serviceHealthy(obj *unstructured.Unstructured) (bool, error) {
	serviceType, err := stringAt(obj, "spec", "type")
	if err != nil || serviceType != string(corev1.ServiceTypeLoadBalancer) {
		return err == nil, err
	}
	var s corev1.ServiceStatus
	if err := fromNested(obj, &s, "status"); err != nil {
		return false, err
	}
	return serviceIngress.reachable(s.LoadBalancer.Ingress), nil
}

// stringAt is the string field at path ("" when absent or null).
func stringAt(obj *unstructured.Unstructured, path ...string) (string, error) {
	parent, err := mapAt(obj.Object, path[:len(path)-1]...)
	if err != nil {
		return "", err
	}
	value, err := stringField(parent, path[len(path)-1])
	return value, at(err, path[:len(path)-1]...)
}

func ingressHealthy(obj *unstructured.Unstructured) (bool, error) {
	var s networkingv1.IngressStatus
	if err := fromNested(obj, &s, "status"); err != nil {
		return false, err
	}
	return ingressIngress.reachable(s.LoadBalancer.Ingress), nil
}

func persistentVolumeClaimHealthy(obj *unstructured.Unstructured) (bool, error) {
	var s corev1.PersistentVolumeClaimStatus
	if err := fromNested(obj, &s, "status"); err != nil {
		return false, err
	}
	return s.Phase == corev1.ClaimBound, nil
}

// podHealthy: succeeded, or running and ready.
func podHealthy(obj *unstructured.Unstructured) (bool, error) {
	var s corev1.PodStatus
	if err := fromNested(obj, &s, "status"); err != nil {
		return false, err
	}
	switch s.Phase {
	case corev1.PodSucceeded:
		return true, nil
	case corev1.PodRunning:
		for _, c := range s.Conditions {
			if c.Type == corev1.PodReady {
				return c.Status == corev1.ConditionTrue, nil
			}
		}
	}
	return false, nil
}

func podDisruptionBudgetHealthy(obj *unstructured.Unstructured) (bool, error) {
	var s policyv1.PodDisruptionBudgetStatus
	if err := fromNested(obj, &s, "status"); err != nil {
		return false, err
	}
	return s.CurrentHealthy >= s.DesiredHealthy, nil
}
