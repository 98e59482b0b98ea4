package native

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/propel-mc/propel/internal/shared/names"
)

// federatedGeneration travels with reflected workload statuses so that
// aggregation can tell whether a member has caught up with the template:
// the member object's metadata.generation and the template generation it
// was built from (annotation resourcetemplate.karmada.io/generation).
type federatedGeneration struct {
	Generation                 int64 `json:"generation,omitempty"`
	ResourceTemplateGeneration int64 `json:"resourceTemplateGeneration,omitempty"`
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
	value := annotation(obj, names.ResourceTemplateGenerationAnnotation)
	templateGeneration, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return federatedGeneration{}, fmt.Errorf("annotation %s: %w", names.ResourceTemplateGenerationAnnotation, err)
	}
	return federatedGeneration{Generation: obj.GetGeneration(), ResourceTemplateGeneration: templateGeneration}, nil
}

// workloadStatus reads .status and the generations. found is false (and
// nothing else is read) without .status.
func workloadStatus(obj *unstructured.Unstructured) (map[string]interface{}, federatedGeneration, bool, error) {
	status, err := mapAt(obj.Object, "status")
	if err != nil || status == nil {
		return nil, federatedGeneration{}, false, err
	}
	gen, err := memberGeneration(obj)
	return status, gen, err == nil, err
}

// emptyJSONObject is a reflected status with nothing in it.
const emptyJSONObject = "{}"

// annotation is the value of an annotation, "" when absent or not a
// string, read without copying the annotations.
func annotation(obj *unstructured.Unstructured, key string) string {
	annotations, _ := mapAt(obj.Object, "metadata", "annotations")
	value, _ := annotations[key].(string)
	return value
}

// Reflected status fields of each workload kind, in the order Karmada's
// typed structs marshal them.
var (
	deploymentReflected  = []string{"observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas"}
	replicaSetReflected  = []string{"replicas", "readyReplicas", "availableReplicas", "observedGeneration"}
	daemonSetReflected   = []string{"currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady", "observedGeneration", "updatedNumberScheduled", "numberAvailable", "numberUnavailable"}
	statefulSetReflected = []string{"replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"}
)

// The status fields of each workload kind that are not omitempty: written
// even when 0.
var (
	replicaSetRequired  = []string{"replicas"}
	daemonSetRequired   = []string{"currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady"}
	statefulSetRequired = []string{"replicas", "availableReplicas"}
)

// reflectWorkload writes the generations and the listed status fields as
// encoding/json writes the wrapped typed status: in order, zeros omitted.
// Every field is an int32 except observedGeneration (int64).
func reflectWorkload(obj *unstructured.Unstructured, fields, required []string, nilWhenEmpty bool) (*runtime.RawExtension, error) {
	status, gen, found, err := workloadStatus(obj)
	if err != nil || !found {
		return nil, err
	}
	var values [8]int64
	if err := statusFields(status, fields, values[:]); err != nil {
		return nil, err
	}
	// Every field starts with a comma; the first one becomes the brace.
	buf := make([]byte, 0, 192)
	buf = appendIntField(buf, "generation", gen.Generation, false)
	buf = appendIntField(buf, "resourceTemplateGeneration", gen.ResourceTemplateGeneration, false)
	for i, field := range fields {
		buf = appendIntField(buf, field, values[i], slices.Contains(required, field))
	}
	if len(buf) == 0 {
		if nilWhenEmpty {
			return nil, nil
		}
		return &runtime.RawExtension{Raw: []byte(emptyJSONObject)}, nil
	}
	buf[0] = '{'
	return &runtime.RawExtension{Raw: append(buf, '}')}, nil
}

// appendIntField appends `,"name":v` unless v is 0 and the field is not
// required (omitempty).
func appendIntField(buf []byte, name string, v int64, required bool) []byte {
	if v == 0 && !required {
		return buf
	}
	buf = append(buf, ',', '"')
	buf = append(buf, name...)
	buf = append(buf, '"', ':')
	return strconv.AppendInt(buf, v, 10)
}

func reflectDeployment(obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	return reflectWorkload(obj, deploymentReflected, nil, true)
}

func reflectReplicaSet(obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	return reflectWorkload(obj, replicaSetReflected, replicaSetRequired, false)
}

func reflectDaemonSet(obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	return reflectWorkload(obj, daemonSetReflected, daemonSetRequired, false)
}

// reflectStatefulSet does not reflect observedGeneration, as Karmada does
// not (see aggregateStatefulSet for the consequence).
func reflectStatefulSet(obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	return reflectWorkload(obj, statefulSetReflected, statefulSetRequired, false)
}

// reflectService reflects the load balancer of LoadBalancer Services only.
func reflectService(obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	serviceType, found, err := unstructured.NestedString(obj.Object, "spec", "type")
	if err != nil || !found || serviceType != string(corev1.ServiceTypeLoadBalancer) {
		return nil, err
	}
	var s corev1.ServiceStatus
	if found, err := nestedTyped(obj, &s, "status"); err != nil || !found {
		return nil, err
	}
	return rawJSON(&corev1.ServiceStatus{LoadBalancer: s.LoadBalancer})
}

func reflectJob(obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	var s batchv1.JobStatus
	if found, err := nestedTyped(obj, &s, "status"); err != nil || !found {
		return nil, err
	}
	return rawJSON(&batchv1.JobStatus{
		Active:         s.Active,
		Succeeded:      s.Succeeded,
		Failed:         s.Failed,
		Conditions:     s.Conditions,
		StartTime:      s.StartTime,
		CompletionTime: s.CompletionTime,
	})
}

func reflectPodDisruptionBudget(obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	var s policyv1.PodDisruptionBudgetStatus
	if found, err := nestedTyped(obj, &s, "status"); err != nil || !found {
		return nil, err
	}
	return rawJSON(&policyv1.PodDisruptionBudgetStatus{
		DisruptionsAllowed: s.DisruptionsAllowed,
		CurrentHealthy:     s.CurrentHealthy,
		DesiredHealthy:     s.DesiredHealthy,
		ExpectedPods:       s.ExpectedPods,
		DisruptedPods:      s.DisruptedPods,
	})
}

func reflectHorizontalPodAutoscaler(obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	var s autoscalingv2.HorizontalPodAutoscalerStatus
	if found, err := nestedTyped(obj, &s, "status"); err != nil || !found {
		return nil, err
	}
	return rawJSON(&autoscalingv2.HorizontalPodAutoscalerStatus{
		CurrentReplicas: s.CurrentReplicas,
		DesiredReplicas: s.DesiredReplicas,
	})
}

// reflectWholeStatus is the fallback for every kind without a dedicated
// handler (and the Ingress handler): .status as it is, nil when absent.
func reflectWholeStatus(obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	v, found, err := unstructured.NestedFieldNoCopy(obj.Object, "status")
	if err != nil || !found || v == nil {
		return nil, err
	}
	status, ok := v.(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf(".status is of type %T, expected an object", v)
	}
	raw, err := json.Marshal(status)
	if err != nil {
		return nil, err
	}
	return &runtime.RawExtension{Raw: raw}, nil
}
