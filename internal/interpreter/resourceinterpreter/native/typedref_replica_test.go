package native_test

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func replicaHandlers() map[schema.GroupVersionKind]replicaFunc {
	return map[schema.GroupVersionKind]replicaFunc{
		deploymentGVK:  workloadReplicas,
		replicaSetGVK:  workloadReplicas,
		statefulSetGVK: workloadReplicas,
		jobGVK:         jobReplicas,
		podGVK:         podReplicas,
	}
}

// podRequirementFields is the part of a pod spec replica requirements are
// computed from. Converting only these fields (not env, probes, volumes...)
// makes replica interpretation several times cheaper than converting the
// whole workload; the API server has validated the rest anyway.
type podRequirementFields struct {
	NodeSelector map[string]string   `json:"nodeSelector,omitempty"`
	Tolerations  []corev1.Toleration `json:"tolerations,omitempty"`
	Affinity     *struct {
		NodeAffinity *struct {
			Required *corev1.NodeSelector `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
		} `json:"nodeAffinity,omitempty"`
	} `json:"affinity,omitempty"`
	Containers        []containerResources `json:"containers,omitempty"`
	InitContainers    []containerResources `json:"initContainers,omitempty"`
	Overhead          corev1.ResourceList  `json:"overhead,omitempty"`
	PriorityClassName string               `json:"priorityClassName,omitempty"`
}

type containerResources struct {
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
}

// requirementTemplate is a pod template's requirement fields.
type requirementTemplate struct {
	Spec podRequirementFields `json:"spec,omitempty"`
}

// podTemplate rebuilds a pod template holding just the requirement fields.
func (t *requirementTemplate) podTemplate() *corev1.PodTemplateSpec {
	f := &t.Spec
	spec := corev1.PodSpec{
		NodeSelector:      f.NodeSelector,
		Tolerations:       f.Tolerations,
		Containers:        containersWith(f.Containers),
		InitContainers:    containersWith(f.InitContainers),
		Overhead:          f.Overhead,
		PriorityClassName: f.PriorityClassName,
	}
	if f.Affinity != nil && f.Affinity.NodeAffinity != nil {
		spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: f.Affinity.NodeAffinity.Required,
		}}
	}
	return &corev1.PodTemplateSpec{Spec: spec}
}

func containersWith(resources []containerResources) []corev1.Container {
	if resources == nil {
		return nil
	}
	out := make([]corev1.Container, len(resources))
	for i := range resources {
		out[i].Resources = resources[i].Resources
	}
	return out
}

// workloadSpec is what replica interpretation reads of a Deployment,
// ReplicaSet or StatefulSet spec.
type workloadSpec struct {
	Replicas *int32              `json:"replicas,omitempty"`
	Template requirementTemplate `json:"template"`
}

// workloadReplicas is spec.replicas, 0 when absent (no defaulting to 1).
func workloadReplicas(obj *unstructured.Unstructured) (int32, *corev1.PodTemplateSpec, error) {
	var spec workloadSpec
	if err := fromNested(obj, &spec, "spec"); err != nil {
		return 0, nil, err
	}
	return deref(spec.Replicas, 0), spec.Template.podTemplate(), nil
}

type jobSpec struct {
	Parallelism *int32              `json:"parallelism,omitempty"`
	Completions *int32              `json:"completions,omitempty"`
	Template    requirementTemplate `json:"template"`
}

// jobReplicas is min(parallelism, completions): parallelism 0 when absent,
// completions defaulting to parallelism.
func jobReplicas(obj *unstructured.Unstructured) (int32, *corev1.PodTemplateSpec, error) {
	var spec jobSpec
	if err := fromNested(obj, &spec, "spec"); err != nil {
		return 0, nil, err
	}
	parallelism := deref(spec.Parallelism, 0)
	return min(parallelism, deref(spec.Completions, parallelism)), spec.Template.podTemplate(), nil
}

// podReplicas is always 1, with the requirements of the pod's own spec.
func podReplicas(obj *unstructured.Unstructured) (int32, *corev1.PodTemplateSpec, error) {
	var tmpl requirementTemplate
	if err := fromNested(obj, &tmpl.Spec, "spec"); err != nil {
		return 0, nil, err
	}
	return 1, tmpl.podTemplate(), nil
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
