package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	knownTypes = append(knownTypes, &FederatedResourceQuota{}, &FederatedResourceQuotaList{})
}

// FederatedResourceQuota limits the resources one namespace may use across
// all clusters (Overall) and hands each listed cluster a ResourceQuota of
// its own (StaticAssignments).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=federatedresourcequotas,scope=Namespaced,categories={karmada-io}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:JSONPath=`.status.overall`,name=`OVERALL`,type=string
// +kubebuilder:printcolumn:JSONPath=`.status.overallUsed`,name=`OVERALL_USED`,type=string
type FederatedResourceQuota struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the quota's limits and per-cluster assignments.
	// +required
	Spec FederatedResourceQuotaSpec `json:"spec"`

	// Status is the enforced limit and the observed usage.
	// +optional
	Status FederatedResourceQuotaStatus `json:"status,omitempty"`
}

// FederatedResourceQuotaSpec is the desired quota.
type FederatedResourceQuotaSpec struct {
	// Overall is the namespace's limit, summed over every cluster, per
	// resource name.
	// +required
	Overall corev1.ResourceList `json:"overall"`

	// StaticAssignments are the ResourceQuotas created in member
	// clusters, one per listed cluster.
	// +optional
	StaticAssignments []StaticClusterAssignment `json:"staticAssignments,omitempty"`
}

// StaticClusterAssignment is the ResourceQuota one cluster gets.
type StaticClusterAssignment struct {
	// ClusterName is the member cluster the quota is created in.
	// +required
	ClusterName string `json:"clusterName"`

	// Hard is the ResourceQuota's hard limit in that cluster.
	// +required
	Hard corev1.ResourceList `json:"hard"`
}

// FederatedResourceQuotaStatus is the observed state of the quota.
type FederatedResourceQuotaStatus struct {
	// Overall is the limit being enforced (a copy of spec.overall).
	// +optional
	Overall corev1.ResourceList `json:"overall,omitempty"`

	// OverallUsed is the namespace's usage summed over every cluster.
	// +optional
	OverallUsed corev1.ResourceList `json:"overallUsed,omitempty"`

	// AggregatedStatus is each member ResourceQuota's hard limit and
	// usage, sorted by cluster name.
	// +optional
	AggregatedStatus []ClusterQuotaStatus `json:"aggregatedStatus,omitempty"`
}

// ClusterQuotaStatus is one member ResourceQuota's status.
type ClusterQuotaStatus struct {
	// ClusterName is the member cluster the quota lives in.
	// +required
	ClusterName string `json:"clusterName"`

	// Hard is the member ResourceQuota's status.hard.
	// +optional
	Hard corev1.ResourceList `json:"hard,omitempty"`

	// Used is the member ResourceQuota's status.used.
	// +optional
	Used corev1.ResourceList `json:"used,omitempty"`
}

// FederatedResourceQuotaList is a list of FederatedResourceQuotas.
//
// +kubebuilder:object:root=true
type FederatedResourceQuotaList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []FederatedResourceQuota `json:"items"`
}
