package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	knownTypes = append(knownTypes,
		&PropagationPolicy{}, &PropagationPolicyList{},
		&ClusterPropagationPolicy{}, &ClusterPropagationPolicyList{},
	)
}

// PropagationPolicy selects namespaced resource templates in its own namespace
// and describes how they are propagated to member clusters.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=propagationpolicies,scope=Namespaced,shortName=pp,categories={karmada-io}
// +kubebuilder:printcolumn:JSONPath=`.spec.conflictResolution`,name="CONFLICT-RESOLUTION",type=string
// +kubebuilder:printcolumn:JSONPath=`.spec.priority`,name="PRIORITY",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="AGE",type=date
type PropagationPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired propagation behavior.
	// +required
	Spec PropagationSpec `json:"spec"`
}

// PropagationPolicyList is a list of PropagationPolicy.
//
// +kubebuilder:object:root=true
type PropagationPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []PropagationPolicy `json:"items"`
}

// ClusterPropagationPolicy is the cluster-scoped counterpart of
// PropagationPolicy: it may select cluster-scoped resources and namespaced
// resources in any namespace.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusterpropagationpolicies,scope=Cluster,shortName=cpp,categories={karmada-io}
// +kubebuilder:printcolumn:JSONPath=`.spec.conflictResolution`,name="CONFLICT-RESOLUTION",type=string
// +kubebuilder:printcolumn:JSONPath=`.spec.priority`,name="PRIORITY",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="AGE",type=date
type ClusterPropagationPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired propagation behavior.
	// +required
	Spec PropagationSpec `json:"spec"`
}

// ClusterPropagationPolicyList is a list of ClusterPropagationPolicy.
//
// +kubebuilder:object:root=true
type ClusterPropagationPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []ClusterPropagationPolicy `json:"items"`
}

// PropagationSpec is the specification of a (Cluster)PropagationPolicy.
type PropagationSpec struct {
	// ResourceSelectors selects the resource templates this policy applies to.
	// +kubebuilder:validation:MinItems=1
	// +required
	ResourceSelectors []ResourceSelector `json:"resourceSelectors"`

	// Association is deprecated; use PropagateDeps instead.
	// +optional
	Association bool `json:"association,omitempty"`

	// PropagateDeps makes the resources that the selected workloads depend on
	// (ConfigMaps, Secrets, ...) follow them to the same clusters.
	// +optional
	PropagateDeps bool `json:"propagateDeps,omitempty"`

	// Placement describes which clusters the resources go to and how
	// replicas are spread across them.
	// +optional
	Placement Placement `json:"placement,omitempty,omitzero"`

	// Priority decides which policy wins when several match a resource:
	// the higher value wins. Only explicit (name or label selector) matches
	// compete by priority.
	// +kubebuilder:default=0
	// +optional
	Priority *int32 `json:"priority,omitempty"`

	// Preemption says whether this policy may take over resources already
	// claimed by a lower-priority policy.
	// +kubebuilder:default="Never"
	// +kubebuilder:validation:Enum=Always;Never
	// +optional
	Preemption PreemptionBehavior `json:"preemption,omitempty"`

	// DependentOverrides lists override policies (OverridePolicy for a
	// PropagationPolicy, ClusterOverridePolicy for a ClusterPropagationPolicy)
	// that must exist before this policy is applied.
	// +optional
	DependentOverrides []string `json:"dependentOverrides,omitempty"`

	// SchedulerName is the scheduler that handles the resulting bindings.
	// +kubebuilder:default="default-scheduler"
	// +optional
	SchedulerName string `json:"schedulerName,omitempty"`

	// Failover describes how the system reacts to cluster or application
	// failures.
	// +optional
	Failover *FailoverBehavior `json:"failover,omitempty"`

	// ConflictResolution says what to do when a resource with the same
	// identity already exists in a member cluster.
	// +kubebuilder:default="Abort"
	// +kubebuilder:validation:Enum=Abort;Overwrite
	// +optional
	ConflictResolution ConflictResolution `json:"conflictResolution,omitempty"`

	// ActivationPreference says how changes to the policy reach already
	// propagated resources. Empty applies them at once; Lazy waits for the
	// next change of the resource template.
	// +kubebuilder:validation:Enum=Lazy
	// +optional
	ActivationPreference ActivationPreference `json:"activationPreference,omitempty"`

	// Suspension pauses propagation of the selected resources.
	// +optional
	Suspension *Suspension `json:"suspension,omitempty"`

	// PreserveResourcesOnDeletion keeps the propagated resources in member
	// clusters when the resource template is deleted.
	// +optional
	PreserveResourcesOnDeletion *bool `json:"preserveResourcesOnDeletion,omitempty"`

	// SchedulePriority sets the scheduling priority of the resulting bindings.
	// +optional
	SchedulePriority *SchedulePriority `json:"schedulePriority,omitempty"`
}

// ResourceSelector selects resource templates.
type ResourceSelector struct {
	// APIVersion of the target resources.
	// +required
	APIVersion string `json:"apiVersion"`

	// Kind of the target resources.
	// +required
	Kind string `json:"kind"`

	// Namespace of the target resources. Empty means the policy's namespace
	// for namespaced policies.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Name of the target resource. Empty means all names.
	// +optional
	Name string `json:"name,omitempty"`

	// LabelSelector filters the target resources by label. It is ignored when
	// Name is set.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
}

// FieldSelector selects clusters by fields.
type FieldSelector struct {
	// MatchExpressions is a list of cluster field requirements (keys:
	// provider, region, zone).
	// +optional
	MatchExpressions []corev1.NodeSelectorRequirement `json:"matchExpressions,omitempty"`
}

// PreemptionBehavior says whether a policy may preempt resources claimed by
// another policy.
type PreemptionBehavior string

const (
	// PreemptAlways lets the policy preempt resources claimed by
	// lower-priority policies.
	PreemptAlways PreemptionBehavior = "Always"
	// PreemptNever disables preemption.
	PreemptNever PreemptionBehavior = "Never"
)

// ConflictResolution says how to handle a resource that already exists in a
// member cluster.
type ConflictResolution string

const (
	// ConflictOverwrite takes over the existing resource.
	ConflictOverwrite ConflictResolution = "Overwrite"
	// ConflictAbort leaves the existing resource alone and reports an error.
	ConflictAbort ConflictResolution = "Abort"
)

// ActivationPreference says how policy changes take effect.
type ActivationPreference string

const (
	// LazyActivation applies policy changes only when the resource template
	// itself changes next.
	LazyActivation ActivationPreference = "Lazy"
)

// Suspension pauses propagation.
type Suspension struct {
	// Dispatching pauses dispatching of Works to all member clusters.
	// +optional
	Dispatching *bool `json:"dispatching,omitempty"`

	// DispatchingOnClusters pauses dispatching to the listed clusters only.
	// +optional
	DispatchingOnClusters *SuspendClusters `json:"dispatchingOnClusters,omitempty"`
}

// SuspendClusters lists the clusters to which dispatching is paused.
type SuspendClusters struct {
	// ClusterNames lists cluster names.
	// +optional
	ClusterNames []string `json:"clusterNames,omitempty"`
}

// PriorityClassSource names where a priority class is looked up.
type PriorityClassSource string

const (
	// KubePriorityClass refers to a Kubernetes PriorityClass
	// (scheduling.k8s.io/v1) in the control plane.
	KubePriorityClass PriorityClassSource = "KubePriorityClass"
)

// SchedulePriority refers to a priority class that sets the scheduling
// priority of the resulting bindings.
type SchedulePriority struct {
	// PriorityClassSource is where PriorityClassName is looked up.
	// +kubebuilder:validation:Enum=KubePriorityClass
	// +required
	PriorityClassSource PriorityClassSource `json:"priorityClassSource"`

	// PriorityClassName is the name of the priority class.
	// +required
	PriorityClassName string `json:"priorityClassName"`
}

// Placement describes the target clusters and how replicas are spread.
type Placement struct {
	// ClusterAffinity restricts the candidate clusters.
	// Mutually exclusive with ClusterAffinities.
	// +optional
	ClusterAffinity *ClusterAffinity `json:"clusterAffinity,omitempty"`

	// ClusterAffinities is an ordered list of cluster groups; the scheduler
	// tries them one after another. Mutually exclusive with ClusterAffinity.
	// +optional
	ClusterAffinities []ClusterAffinityTerm `json:"clusterAffinities,omitempty"`

	// ClusterTolerations lets the resources tolerate cluster taints.
	// +optional
	ClusterTolerations []corev1.Toleration `json:"clusterTolerations,omitempty"`

	// SpreadConstraints describes how resources spread across cluster groups.
	// +optional
	SpreadConstraints []SpreadConstraint `json:"spreadConstraints,omitempty"`

	// ReplicaScheduling describes how replicas are scheduled. Nil means
	// Duplicated.
	// +optional
	ReplicaScheduling *ReplicaSchedulingStrategy `json:"replicaScheduling,omitempty"`

	// WorkloadAffinity describes affinity and anti-affinity between workloads.
	// +optional
	WorkloadAffinity *WorkloadAffinity `json:"workloadAffinity,omitempty"`
}

// ReplicaSchedulingType returns the effective replica scheduling type: a nil
// ReplicaScheduling means Duplicated.
func (p *Placement) ReplicaSchedulingType() ReplicaSchedulingType {
	if p == nil || p.ReplicaScheduling == nil {
		return ReplicaSchedulingTypeDuplicated
	}
	return p.ReplicaScheduling.ReplicaSchedulingType
}

// SpreadFieldValue is a cluster field resources can be spread by.
type SpreadFieldValue string

const (
	// SpreadByFieldCluster spreads by cluster.
	SpreadByFieldCluster SpreadFieldValue = "cluster"
	// SpreadByFieldRegion spreads by region.
	SpreadByFieldRegion SpreadFieldValue = "region"
	// SpreadByFieldZone spreads by zone.
	SpreadByFieldZone SpreadFieldValue = "zone"
	// SpreadByFieldProvider spreads by provider.
	SpreadByFieldProvider SpreadFieldValue = "provider"
)

// SpreadConstraint describes how resources are spread across cluster groups.
type SpreadConstraint struct {
	// SpreadByField groups clusters by a cluster field. Mutually exclusive
	// with SpreadByLabel.
	// +kubebuilder:validation:Enum=cluster;region;zone;provider
	// +optional
	SpreadByField SpreadFieldValue `json:"spreadByField,omitempty"`

	// SpreadByLabel groups clusters by the value of this cluster label.
	// Mutually exclusive with SpreadByField.
	// +optional
	SpreadByLabel string `json:"spreadByLabel,omitempty"`

	// MaxGroups is the maximum number of groups to select.
	// +optional
	MaxGroups int `json:"maxGroups,omitempty"`

	// MinGroups is the minimum number of groups to select.
	// +optional
	MinGroups int `json:"minGroups,omitempty"`
}

// ClusterAffinity selects a set of clusters.
type ClusterAffinity struct {
	// LabelSelector filters clusters by label.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`

	// FieldSelector filters clusters by field.
	// +optional
	FieldSelector *FieldSelector `json:"fieldSelector,omitempty"`

	// ClusterNames lists the selected clusters.
	// +optional
	ClusterNames []string `json:"clusterNames,omitempty"`

	// ExcludeClusters lists clusters to leave out.
	// +optional
	ExcludeClusters []string `json:"exclude,omitempty"`
}

// ClusterAffinityTerm is a named cluster group used in ClusterAffinities.
type ClusterAffinityTerm struct {
	// AffinityName is the name of this cluster group.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +required
	AffinityName string `json:"affinityName"`

	ClusterAffinity `json:",inline"`

	// OverflowAffinities lists further cluster groups that receive the
	// replicas this group cannot hold.
	// +optional
	OverflowAffinities []OverflowClusterAffinity `json:"overflowAffinities,omitempty"`
}

// OverflowClusterAffinity is a named cluster group that receives overflow
// replicas of a ClusterAffinityTerm.
type OverflowClusterAffinity struct {
	// AffinityName is the name of this cluster group.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +required
	AffinityName string `json:"affinityName"`

	ClusterAffinity `json:",inline"`
}

// ReplicaSchedulingType is how replicas are scheduled.
type ReplicaSchedulingType string

const (
	// ReplicaSchedulingTypeDuplicated gives every selected cluster the full
	// replica count.
	ReplicaSchedulingTypeDuplicated ReplicaSchedulingType = "Duplicated"
	// ReplicaSchedulingTypeDivided divides the replicas among the selected
	// clusters.
	ReplicaSchedulingTypeDivided ReplicaSchedulingType = "Divided"
)

// ReplicaDivisionPreference is how divided replicas are split.
type ReplicaDivisionPreference string

const (
	// ReplicaDivisionPreferenceAggregated packs replicas into as few clusters
	// as possible.
	ReplicaDivisionPreferenceAggregated ReplicaDivisionPreference = "Aggregated"
	// ReplicaDivisionPreferenceWeighted splits replicas by weight.
	ReplicaDivisionPreferenceWeighted ReplicaDivisionPreference = "Weighted"
)

// ReplicaSchedulingStrategy describes how replicas are scheduled.
type ReplicaSchedulingStrategy struct {
	// ReplicaSchedulingType is Duplicated or Divided.
	// +kubebuilder:validation:Enum=Duplicated;Divided
	// +kubebuilder:default=Divided
	// +optional
	ReplicaSchedulingType ReplicaSchedulingType `json:"replicaSchedulingType,omitempty"`

	// ReplicaDivisionPreference is how Divided replicas are split.
	// +kubebuilder:validation:Enum=Aggregated;Weighted
	// +optional
	ReplicaDivisionPreference ReplicaDivisionPreference `json:"replicaDivisionPreference,omitempty"`

	// WeightPreference gives the weights for the Weighted preference.
	// +optional
	WeightPreference *ClusterPreferences `json:"weightPreference,omitempty"`
}

// DynamicWeightFactor is a factor that derives cluster weights at
// scheduling time.
type DynamicWeightFactor string

const (
	// DynamicWeightByAvailableReplicas weighs clusters by the replicas they
	// can still hold.
	DynamicWeightByAvailableReplicas DynamicWeightFactor = "AvailableReplicas"
)

// ClusterPreferences gives cluster weights.
type ClusterPreferences struct {
	// StaticWeightList gives fixed weights to groups of clusters.
	// +optional
	StaticWeightList []StaticClusterWeight `json:"staticWeightList,omitempty"`

	// DynamicWeight derives weights at scheduling time. It takes precedence
	// over StaticWeightList.
	// +kubebuilder:validation:Enum=AvailableReplicas
	// +optional
	DynamicWeight DynamicWeightFactor `json:"dynamicWeight,omitempty"`
}

// StaticClusterWeight gives a fixed weight to a group of clusters.
type StaticClusterWeight struct {
	// TargetCluster selects the clusters.
	// +required
	TargetCluster ClusterAffinity `json:"targetCluster"`

	// Weight of the selected clusters.
	// +kubebuilder:validation:Minimum=1
	// +required
	Weight int64 `json:"weight"`
}

// WorkloadAffinity describes affinity and anti-affinity between workloads.
type WorkloadAffinity struct {
	// Affinity co-locates workloads in the same affinity group.
	// +optional
	Affinity *WorkloadAffinityTerm `json:"affinity,omitempty"`

	// AntiAffinity separates workloads in the same anti-affinity group.
	// +optional
	AntiAffinity *WorkloadAntiAffinityTerm `json:"antiAffinity,omitempty"`
}

// WorkloadAffinityTerm defines an affinity group by a workload label key.
type WorkloadAffinityTerm struct {
	// GroupByLabelKey is the workload label key whose value names the group.
	// +required
	GroupByLabelKey string `json:"groupByLabelKey"`
}

// WorkloadAntiAffinityTerm defines an anti-affinity group by a workload label
// key.
type WorkloadAntiAffinityTerm struct {
	// GroupByLabelKey is the workload label key whose value names the group.
	// +required
	GroupByLabelKey string `json:"groupByLabelKey"`
}

// PurgeMode is how a resource is removed from a cluster it is evicted from.
type PurgeMode string

const (
	// PurgeModeDirectly removes the resource at once, without waiting for
	// it to become healthy elsewhere.
	PurgeModeDirectly PurgeMode = "Directly"
	// PurgeModeGracefully removes the resource once it is healthy in the new
	// cluster or a grace period has passed.
	PurgeModeGracefully PurgeMode = "Gracefully"
	// PurgeModeNever never removes the resource.
	PurgeModeNever PurgeMode = "Never"
)

// FailoverBehavior describes how failures are handled.
type FailoverBehavior struct {
	// Application describes failover on application failures.
	// +optional
	Application *ApplicationFailoverBehavior `json:"application,omitempty"`

	// Cluster describes failover on cluster failures.
	// +optional
	Cluster *ClusterFailoverBehavior `json:"cluster,omitempty"`
}

// ApplicationFailoverBehavior describes application failover.
type ApplicationFailoverBehavior struct {
	// DecisionConditions says when failover starts.
	// +required
	DecisionConditions DecisionConditions `json:"decisionConditions"`

	// PurgeMode is how the application is removed from the failed cluster.
	// +kubebuilder:default=Gracefully
	// +kubebuilder:validation:Enum=Directly;Gracefully;Never
	// +optional
	PurgeMode PurgeMode `json:"purgeMode,omitempty"`

	// GracePeriodSeconds is how long to wait before removing the application
	// from the failed cluster in Gracefully mode.
	// +optional
	GracePeriodSeconds *int32 `json:"gracePeriodSeconds,omitempty"`

	// StatePreservation carries state from the failed application to the new
	// one.
	// +optional
	StatePreservation *StatePreservation `json:"statePreservation,omitempty"`
}

// DecisionConditions says when application failover starts.
type DecisionConditions struct {
	// TolerationSeconds is how long an unhealthy application is tolerated
	// before failover.
	// +kubebuilder:default=300
	// +optional
	TolerationSeconds *int32 `json:"tolerationSeconds,omitempty"`
}

// ClusterFailoverBehavior describes failover on cluster failures.
type ClusterFailoverBehavior struct {
	// PurgeMode is how the application is removed from the failed cluster.
	// +kubebuilder:default=Gracefully
	// +kubebuilder:validation:Enum=Directly;Gracefully
	// +optional
	PurgeMode PurgeMode `json:"purgeMode,omitempty"`

	// StatePreservation carries state from the failed application to the new
	// one.
	// +optional
	StatePreservation *StatePreservation `json:"statePreservation,omitempty"`
}

// StatePreservation lists the state to carry across failover.
type StatePreservation struct {
	// Rules lists state to preserve.
	// +required
	Rules []StatePreservationRule `json:"rules"`
}

// StatePreservationRule copies one value out of the failed application's
// status into a label on the new one.
type StatePreservationRule struct {
	// AliasLabelName is the label the value is stored under.
	// +required
	AliasLabelName string `json:"aliasLabelName"`

	// JSONPath selects the value in the application's status.
	// +required
	JSONPath string `json:"jsonPath"`
}
