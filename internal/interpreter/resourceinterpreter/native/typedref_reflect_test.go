package native_test

import (
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/shared/names"
)

// Unchanged since the typed implementation: production code serves as
// the reference (export_test.go).
var (
	reflectService                 = native.ReflectService
	reflectJob                     = native.ReflectJob
	reflectPodDisruptionBudget     = native.ReflectPodDisruptionBudget
	reflectHorizontalPodAutoscaler = native.ReflectHorizontalPodAutoscaler
	reflectWholeStatus             = native.ReflectWholeStatus
)

type federatedGeneration = native.FederatedGeneration

func reflectHandlers() map[schema.GroupVersionKind]reflectFunc {
	return map[schema.GroupVersionKind]reflectFunc{
		deploymentGVK:  reflectDeployment,
		replicaSetGVK:  reflectReplicaSet,
		daemonSetGVK:   reflectDaemonSet,
		statefulSetGVK: reflectStatefulSet,
		serviceGVK:     reflectService,
		ingressGVK:     reflectWholeStatus,
		jobGVK:         reflectJob,
		pdbGVK:         reflectPodDisruptionBudget,
		hpaGVK:         reflectHorizontalPodAutoscaler,
	}
}

// Reflected workload statuses: the generations first, then the Kubernetes
// status fields (encoding/json inlines the untagged embedded structs).
type (
	wrappedDeploymentStatus struct {
		federatedGeneration
		appsv1.DeploymentStatus
	}
	wrappedReplicaSetStatus struct {
		federatedGeneration
		appsv1.ReplicaSetStatus
	}
	wrappedDaemonSetStatus struct {
		federatedGeneration
		appsv1.DaemonSetStatus
	}
	wrappedStatefulSetStatus struct {
		federatedGeneration
		appsv1.StatefulSetStatus
	}
)

// memberGeneration reads the generations of a member workload. A missing
// or non-integer template-generation annotation is an error.
func memberGeneration(obj *unstructured.Unstructured) (federatedGeneration, error) {
	value := obj.GetAnnotations()[names.ResourceTemplateGenerationAnnotation]
	templateGeneration, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return federatedGeneration{}, fmt.Errorf("annotation %s: %w", names.ResourceTemplateGenerationAnnotation, err)
	}
	return federatedGeneration{Generation: obj.GetGeneration(), ResourceTemplateGeneration: templateGeneration}, nil
}

// workloadStatus converts .status into a typed status and reads the
// generations. found is false (and nothing else is read) without .status.
func workloadStatus(obj *unstructured.Unstructured, status any) (federatedGeneration, bool, error) {
	found, err := nestedTyped(obj, status, "status")
	if err != nil || !found {
		return federatedGeneration{}, false, err
	}
	gen, err := memberGeneration(obj)
	return gen, err == nil, err
}

// emptyJSONObject is a reflected status with nothing in it.
const emptyJSONObject = "{}"

func reflectDeployment(obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	var s appsv1.DeploymentStatus
	gen, found, err := workloadStatus(obj, &s)
	if err != nil || !found {
		return nil, err
	}
	raw, err := rawJSON(&wrappedDeploymentStatus{federatedGeneration: gen, DeploymentStatus: appsv1.DeploymentStatus{
		ObservedGeneration:  s.ObservedGeneration,
		Replicas:            s.Replicas,
		UpdatedReplicas:     s.UpdatedReplicas,
		ReadyReplicas:       s.ReadyReplicas,
		AvailableReplicas:   s.AvailableReplicas,
		UnavailableReplicas: s.UnavailableReplicas,
	}})
	if err != nil || string(raw.Raw) == emptyJSONObject {
		return nil, err
	}
	return raw, nil
}

func reflectReplicaSet(obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	var s appsv1.ReplicaSetStatus
	gen, found, err := workloadStatus(obj, &s)
	if err != nil || !found {
		return nil, err
	}
	return rawJSON(&wrappedReplicaSetStatus{federatedGeneration: gen, ReplicaSetStatus: appsv1.ReplicaSetStatus{
		Replicas:           s.Replicas,
		ReadyReplicas:      s.ReadyReplicas,
		AvailableReplicas:  s.AvailableReplicas,
		ObservedGeneration: s.ObservedGeneration,
	}})
}

func reflectDaemonSet(obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	var s appsv1.DaemonSetStatus
	gen, found, err := workloadStatus(obj, &s)
	if err != nil || !found {
		return nil, err
	}
	return rawJSON(&wrappedDaemonSetStatus{federatedGeneration: gen, DaemonSetStatus: appsv1.DaemonSetStatus{
		CurrentNumberScheduled: s.CurrentNumberScheduled,
		NumberMisscheduled:     s.NumberMisscheduled,
		DesiredNumberScheduled: s.DesiredNumberScheduled,
		NumberReady:            s.NumberReady,
		ObservedGeneration:     s.ObservedGeneration,
		UpdatedNumberScheduled: s.UpdatedNumberScheduled,
		NumberAvailable:        s.NumberAvailable,
		NumberUnavailable:      s.NumberUnavailable,
	}})
}

// reflectStatefulSet does not reflect observedGeneration, as Karmada does
// not (see aggregateStatefulSet for the consequence).
func reflectStatefulSet(obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	var s appsv1.StatefulSetStatus
	gen, found, err := workloadStatus(obj, &s)
	if err != nil || !found {
		return nil, err
	}
	return rawJSON(&wrappedStatefulSetStatus{federatedGeneration: gen, StatefulSetStatus: appsv1.StatefulSetStatus{
		Replicas:          s.Replicas,
		ReadyReplicas:     s.ReadyReplicas,
		CurrentReplicas:   s.CurrentReplicas,
		UpdatedReplicas:   s.UpdatedReplicas,
		AvailableReplicas: s.AvailableReplicas,
	}})
}
