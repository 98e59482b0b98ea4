package native_test

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
)

// Unchanged since the typed implementation: production code serves as
// the reference (export_test.go).
var (
	ingressHealthy               = native.IngressHealthy
	persistentVolumeClaimHealthy = native.PersistentVolumeClaimHealthy
	podHealthy                   = native.PodHealthy
	podDisruptionBudgetHealthy   = native.PodDisruptionBudgetHealthy
)

func healthHandlers() map[schema.GroupVersionKind]healthFunc {
	return map[schema.GroupVersionKind]healthFunc{
		deploymentGVK:  deploymentHealthy,
		statefulSetGVK: statefulSetHealthy,
		replicaSetGVK:  replicaSetHealthy,
		daemonSetGVK:   daemonSetHealthy,
		serviceGVK:     serviceHealthy,
		ingressGVK:     ingressHealthy,
		pvcGVK:         persistentVolumeClaimHealthy,
		podGVK:         podHealthy,
		pdbGVK:         podDisruptionBudgetHealthy,
	}
}

// specReplicas reads spec.replicas (nil when absent) and converts .status.
func specReplicas(obj *unstructured.Unstructured, status any) (*int32, error) {
	var spec struct {
		Replicas *int32 `json:"replicas,omitempty"`
	}
	if err := fromNested(obj, &spec, "spec"); err != nil {
		return nil, err
	}
	return spec.Replicas, fromNested(obj, status, "status")
}

// rolledOut: the controller saw the latest spec, every wanted replica is
// updated and every updated replica is available.
func rolledOut(obj *unstructured.Unstructured, replicas *int32, observedGeneration int64, updated, available int32) bool {
	return observedGeneration == obj.GetGeneration() &&
		(replicas == nil || updated >= *replicas) &&
		available >= updated
}

func deploymentHealthy(obj *unstructured.Unstructured) (bool, error) {
	var s appsv1.DeploymentStatus
	replicas, err := specReplicas(obj, &s)
	if err != nil {
		return false, err
	}
	return rolledOut(obj, replicas, s.ObservedGeneration, s.UpdatedReplicas, s.AvailableReplicas), nil
}

func statefulSetHealthy(obj *unstructured.Unstructured) (bool, error) {
	var s appsv1.StatefulSetStatus
	replicas, err := specReplicas(obj, &s)
	if err != nil {
		return false, err
	}
	return rolledOut(obj, replicas, s.ObservedGeneration, s.UpdatedReplicas, s.AvailableReplicas), nil
}

func replicaSetHealthy(obj *unstructured.Unstructured) (bool, error) {
	var s appsv1.ReplicaSetStatus
	replicas, err := specReplicas(obj, &s)
	if err != nil {
		return false, err
	}
	return s.ObservedGeneration == obj.GetGeneration() &&
		(replicas == nil || s.AvailableReplicas >= *replicas), nil
}

func daemonSetHealthy(obj *unstructured.Unstructured) (bool, error) {
	var s appsv1.DaemonSetStatus
	if err := fromNested(obj, &s, "status"); err != nil {
		return false, err
	}
	return s.ObservedGeneration == obj.GetGeneration() &&
		s.UpdatedNumberScheduled >= s.DesiredNumberScheduled &&
		s.NumberAvailable >= s.UpdatedNumberScheduled, nil
}

// serviceHealthy: any Service but a LoadBalancer is healthy; a LoadBalancer
// needs an ingress point.
func serviceHealthy(obj *unstructured.Unstructured) (bool, error) {
	var svc struct {
		Spec   corev1.ServiceSpec   `json:"spec"`
		Status corev1.ServiceStatus `json:"status"`
	}
	if err := toTyped(obj, &svc); err != nil {
		return false, err
	}
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return true, nil
	}
	for _, in := range svc.Status.LoadBalancer.Ingress {
		if in.Hostname != "" || in.IP != "" {
			return true, nil
		}
	}
	return false, nil
}
