package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	knownTypes = append(knownTypes, &ClusterTaintPolicy{}, &ClusterTaintPolicyList{})
}

// ClusterTaintPolicy puts taints on the Clusters it targets while their
// status conditions match AddOnConditions, and takes them off when the
// conditions match RemoveOnConditions (AddOnConditions are evaluated
// first). Deleting the policy leaves the taints it added in place.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clustertaintpolicies,scope=Cluster
type ClusterTaintPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired tainting behavior.
	// +required
	Spec ClusterTaintPolicySpec `json:"spec"`
}

// ClusterTaintPolicySpec says which clusters get which taints, and when.
type ClusterTaintPolicySpec struct {
	// TargetClusters selects the clusters the policy looks after; nil
	// selects every cluster. Clusters that stop matching keep their taints.
	// +optional
	TargetClusters *ClusterAffinity `json:"targetClusters,omitempty"`

	// AddOnConditions must all match the cluster's status conditions for
	// the taints to be added; an empty list adds nothing.
	// +optional
	AddOnConditions []MatchCondition `json:"addOnConditions,omitempty"`

	// RemoveOnConditions must all match the cluster's status conditions
	// for the taints to be removed; an empty list removes nothing.
	// +optional
	RemoveOnConditions []MatchCondition `json:"removeOnConditions,omitempty"`

	// Taints are added or removed (matched by key and effect) on the
	// targeted clusters; changes take effect at the next evaluation.
	// +kubebuilder:validation:MinItems=1
	// +required
	Taints []Taint `json:"taints"`
}

// MatchConditionOperator relates a condition's status to StatusValues.
type MatchConditionOperator string

const (
	// MatchConditionOpIn matches a status listed in StatusValues.
	MatchConditionOpIn MatchConditionOperator = "In"
	// MatchConditionOpNotIn matches a status not listed in StatusValues.
	MatchConditionOpNotIn MatchConditionOperator = "NotIn"
)

// MatchCondition matches one status condition of a Cluster.
type MatchCondition struct {
	// ConditionType is the type of the Cluster status condition.
	// +required
	ConditionType string `json:"conditionType"`

	// Operator is In or NotIn.
	// +required
	Operator MatchConditionOperator `json:"operator"`

	// StatusValues are condition statuses (True, False, Unknown).
	// +required
	StatusValues []metav1.ConditionStatus `json:"statusValues"`
}

// Taint is a taint the policy puts on a cluster.
type Taint struct {
	// Key is the taint key.
	// +required
	Key string `json:"key"`

	// Effect is the taint effect (NoSchedule, PreferNoSchedule, NoExecute).
	// +required
	Effect corev1.TaintEffect `json:"effect"`

	// Value is the taint value.
	// +optional
	Value string `json:"value,omitempty"`
}

// ClusterTaintPolicyList is a list of ClusterTaintPolicy.
//
// +kubebuilder:object:root=true
type ClusterTaintPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []ClusterTaintPolicy `json:"items"`
}
