package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	knownTypes = append(knownTypes, &Remedy{}, &RemedyList{})
}

// Remedy names the actions to take on clusters whose conditions match; the
// remedy controller records them in the Cluster's status.remedyActions.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=remedies,scope=Cluster,categories={karmada-io}
// +kubebuilder:storageversion
type Remedy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the clusters, decisions and actions.
	// +required
	Spec RemedySpec `json:"spec"`
}

// RemedySpec is the clusters, decisions and actions of a Remedy.
type RemedySpec struct {
	// ClusterAffinity selects the clusters by name; unset selects every
	// cluster.
	// +optional
	ClusterAffinity *ClusterAffinity `json:"clusterAffinity,omitempty"`

	// DecisionMatches trigger the actions when any one matches; unset
	// triggers them unconditionally.
	// +optional
	DecisionMatches []DecisionMatch `json:"decisionMatches,omitempty"`

	// Actions to take on the matching clusters.
	// +optional
	Actions []RemedyAction `json:"actions,omitempty"`
}

// ClusterAffinity selects clusters by name.
type ClusterAffinity struct {
	// ClusterNames are the selected clusters.
	// +optional
	ClusterNames []string `json:"clusterNames,omitempty"`
}

// DecisionMatch is one condition that triggers the actions.
type DecisionMatch struct {
	// ClusterConditionMatch compares one Cluster condition.
	// +optional
	ClusterConditionMatch *ClusterConditionRequirement `json:"clusterConditionMatch,omitempty"`
}

// ClusterConditionRequirement compares the status of one Cluster
// condition.
type ClusterConditionRequirement struct {
	// ConditionType is the Cluster condition's type.
	// +required
	ConditionType ConditionType `json:"conditionType"`

	// Operator is Equal or NotEqual.
	// +kubebuilder:validation:Enum=Equal;NotEqual
	// +required
	Operator ClusterConditionOperator `json:"operator"`

	// ConditionStatus is compared with the condition's status.
	// +required
	ConditionStatus string `json:"conditionStatus"`
}

// ConditionType is a Cluster condition type a Remedy can match.
type ConditionType string

// ServiceDomainNameResolutionReady is the condition the example CoreDNS
// detector writes on Clusters.
const ServiceDomainNameResolutionReady ConditionType = "ServiceDomainNameResolutionReady"

// ClusterConditionOperator compares a condition's status.
type ClusterConditionOperator string

const (
	// ClusterConditionEqual matches a status equal to conditionStatus.
	ClusterConditionEqual ClusterConditionOperator = "Equal"
	// ClusterConditionNotEqual matches a status other than conditionStatus.
	ClusterConditionNotEqual ClusterConditionOperator = "NotEqual"
)

// RemedyAction is an action on a cluster.
type RemedyAction string

// TrafficControl asks traffic providers to take traffic away from the
// cluster.
const TrafficControl RemedyAction = "TrafficControl"

// RemedyList is a list of Remedy.
//
// +kubebuilder:object:root=true
type RemedyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Remedy `json:"items"`
}
