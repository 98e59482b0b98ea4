package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func init() {
	knownTypes = append(knownTypes, &Work{}, &WorkList{})
}

// Work holds the manifests to apply in one member cluster. Works live in the
// cluster's execution namespace (karmada-es-<cluster>).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=works,scope=Namespaced,shortName=wk,categories={karmada-io}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:JSONPath=`.spec.workload.manifests[*].kind`,name="WORKLOAD-KIND",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Applied")].status`,name="APPLIED",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="AGE",type=date
type Work struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the Work.
	// +required
	Spec WorkSpec `json:"spec"`

	// Status is the observed state of the Work.
	// +optional
	Status WorkStatus `json:"status,omitempty,omitzero"`
}

// WorkList is a list of Work.
//
// +kubebuilder:object:root=true
type WorkList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Work `json:"items"`
}

// WorkSpec is the desired state of a Work.
type WorkSpec struct {
	// Workload holds the manifests to apply.
	// +optional
	Workload WorkloadTemplate `json:"workload,omitempty,omitzero"`

	// SuspendDispatching pauses dispatching of the manifests to the member
	// cluster.
	// +optional
	SuspendDispatching *bool `json:"suspendDispatching,omitempty"`

	// PreserveResourcesOnDeletion keeps the applied resources in the member
	// cluster when the Work is deleted.
	// +optional
	PreserveResourcesOnDeletion *bool `json:"preserveResourcesOnDeletion,omitempty"`
}

// WorkloadTemplate lists the manifests of a Work.
type WorkloadTemplate struct {
	// Manifests are the resources to apply.
	// +optional
	Manifests []Manifest `json:"manifests,omitempty"`
}

// Manifest is one complete resource to apply.
type Manifest struct {
	runtime.RawExtension `json:",inline"`
}

// WorkStatus is the observed state of a Work.
type WorkStatus struct {
	// Conditions are the latest observations of the Work's state.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ManifestStatuses reports the status of each applied manifest.
	// +optional
	ManifestStatuses []ManifestStatus `json:"manifestStatuses,omitempty"`
}

// ManifestStatus is the status of one applied manifest.
type ManifestStatus struct {
	// Identifier identifies the manifest.
	// +required
	Identifier ResourceIdentifier `json:"identifier"`

	// Status is the status of the resource in the member cluster, as
	// reflected by the resource interpreter.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Status *runtime.RawExtension `json:"status,omitempty"`

	// Health is the health of the resource.
	// +kubebuilder:validation:Enum=Healthy;Unhealthy;Unknown
	// +optional
	Health ResourceHealth `json:"health,omitempty"`
}

// ResourceIdentifier identifies a manifest of a Work and the resource it
// produces.
type ResourceIdentifier struct {
	// Ordinal is the index of the manifest in spec.workload.manifests.
	// +required
	Ordinal int `json:"ordinal"`

	// Group of the resource.
	// +optional
	Group string `json:"group,omitempty"`

	// Version of the resource.
	// +required
	Version string `json:"version"`

	// Kind of the resource.
	// +required
	Kind string `json:"kind"`

	// Resource is the plural resource name.
	// +required
	Resource string `json:"resource"`

	// Namespace of the resource; empty for cluster-scoped resources.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Name of the resource.
	// +required
	Name string `json:"name"`
}

// Condition types of a Work.
const (
	// WorkApplied means the manifests have been applied to the member
	// cluster.
	WorkApplied string = "Applied"
	// WorkProgressing means the resources are progressing (defined, unused).
	WorkProgressing string = "Progressing"
	// WorkAvailable means the resources are available (defined, unused).
	WorkAvailable string = "Available"
	// WorkDegraded means the resources are degraded (defined, unused).
	WorkDegraded string = "Degraded"
	// WorkDispatching reports whether dispatching is running or suspended.
	WorkDispatching string = "Dispatching"
)

// ResourceHealth is the health of a resource in a member cluster.
type ResourceHealth string

const (
	// ResourceHealthy means the resource is healthy.
	ResourceHealthy ResourceHealth = "Healthy"
	// ResourceUnhealthy means the resource is unhealthy.
	ResourceUnhealthy ResourceHealth = "Unhealthy"
	// ResourceUnknown means the health could not be determined.
	ResourceUnknown ResourceHealth = "Unknown"
)
