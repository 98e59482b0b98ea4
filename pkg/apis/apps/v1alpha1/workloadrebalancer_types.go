package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	knownTypes = append(knownTypes, &WorkloadRebalancer{}, &WorkloadRebalancerList{})
}

// WorkloadRebalancer asks for a fresh reschedule of the listed workloads,
// once: the controller stamps their bindings' rescheduleTriggeredAt and
// records the outcome per workload.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=workloadrebalancers,scope=Cluster
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
type WorkloadRebalancer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec lists the workloads to reschedule.
	// +required
	Spec WorkloadRebalancerSpec `json:"spec"`

	// Status records the outcome per workload.
	// +optional
	Status WorkloadRebalancerStatus `json:"status,omitempty"`
}

// WorkloadRebalancerSpec lists the workloads to reschedule.
type WorkloadRebalancerSpec struct {
	// Workloads are the resource templates whose bindings are rescheduled;
	// at least one.
	// +kubebuilder:validation:MinItems=1
	// +required
	Workloads []ObjectReference `json:"workloads"`

	// TTLSecondsAfterFinished deletes the rebalancer this long after every
	// workload has a result; unset keeps it, zero deletes it at once.
	// +optional
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
}

// ObjectReference names a resource template.
type ObjectReference struct {
	// APIVersion of the template.
	// +required
	APIVersion string `json:"apiVersion"`

	// Kind of the template.
	// +required
	Kind string `json:"kind"`

	// Name of the template.
	// +required
	Name string `json:"name"`

	// Namespace of the template; empty for a cluster-scoped template.
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// WorkloadRebalancerStatus records the outcome per workload.
type WorkloadRebalancerStatus struct {
	// ObservedWorkloads is the result for each workload, sorted.
	// +optional
	ObservedWorkloads []ObservedWorkload `json:"observedWorkloads,omitempty"`

	// ObservedGeneration is the generation the controller last handled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// FinishTime is when every workload last got a result.
	// +optional
	FinishTime *metav1.Time `json:"finishTime,omitempty"`
}

// ObservedWorkload is the outcome for one workload.
type ObservedWorkload struct {
	// Workload is the template.
	// +required
	Workload ObjectReference `json:"workload"`

	// Result is Successful or Failed; empty while pending.
	// +optional
	Result RebalanceResult `json:"result,omitempty"`

	// Reason says why the rebalance failed.
	// +optional
	Reason RebalanceFailedReason `json:"reason,omitempty"`
}

// RebalanceResult is the outcome of rebalancing one workload.
type RebalanceResult string

const (
	// RebalanceSuccessful: the binding's rescheduleTriggeredAt was written.
	RebalanceSuccessful RebalanceResult = "Successful"
	// RebalanceFailed: the workload cannot be rebalanced (see Reason).
	RebalanceFailed RebalanceResult = "Failed"
)

// RebalanceFailedReason says why a workload was not rebalanced.
type RebalanceFailedReason string

const (
	// RebalanceObjectNotFound: the workload has no binding.
	RebalanceObjectNotFound RebalanceFailedReason = "ReferencedBindingNotFound"
)

// WorkloadRebalancerList is a list of WorkloadRebalancer.
//
// +kubebuilder:object:root=true
type WorkloadRebalancerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []WorkloadRebalancer `json:"items"`
}
