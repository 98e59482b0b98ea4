package main

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// workloadGV is the group and version of the sample Workload CRD
// (karmada-samples/workload/workload.example.io_workloads.yaml).
var workloadGV = schema.GroupVersion{Group: "workload.example.io", Version: "v1alpha1"}

// Workload is the sample custom workload: a replica count, a pod template
// and a paused flag, with the ready replicas in its status.
type Workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WorkloadSpec   `json:"spec"`
	Status WorkloadStatus `json:"status,omitempty"`
}

// WorkloadSpec is the desired state of a Workload.
type WorkloadSpec struct {
	// Replicas is the desired number of pods; the CRD documents 1 when unset.
	Replicas *int32 `json:"replicas,omitempty"`
	// Template describes the pods.
	Template corev1.PodTemplateSpec `json:"template"`
	// Paused stops rollouts; users and member-cluster controllers set it.
	Paused bool `json:"paused,omitempty"`
}

// WorkloadStatus is the observed state of a Workload.
type WorkloadStatus struct {
	// ReadyReplicas is the number of ready pods.
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// Conditions are the current conditions of the Workload.
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// desiredReplicas is spec.replicas, 1 when unset.
func (w *Workload) desiredReplicas() int32 {
	if w.Spec.Replicas == nil {
		return 1
	}
	return *w.Spec.Replicas
}

// DeepCopyInto copies w into out.
func (w *Workload) DeepCopyInto(out *Workload) {
	*out = *w
	out.TypeMeta = w.TypeMeta
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if w.Spec.Replicas != nil {
		r := *w.Spec.Replicas
		out.Spec.Replicas = &r
	}
	w.Spec.Template.DeepCopyInto(&out.Spec.Template)
	if w.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(w.Status.Conditions))
		for i := range w.Status.Conditions {
			w.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
}

// DeepCopyObject implements runtime.Object.
func (w *Workload) DeepCopyObject() runtime.Object {
	out := &Workload{}
	w.DeepCopyInto(out)
	return out
}

// newScheme knows the Workload kind, for the SDK's Decoder.
func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	s.AddKnownTypes(workloadGV, &Workload{})
	metav1.AddToGroupVersion(s, workloadGV)
	return s
}
