package v1alpha2

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

func init() {
	knownTypes = append(knownTypes,
		&ResourceBinding{}, &ResourceBindingList{},
		&ClusterResourceBinding{}, &ClusterResourceBindingList{},
	)
}

// ResourceBinding ties a namespaced resource template to its propagation
// policy and records where it is scheduled.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=resourcebindings,scope=Namespaced,shortName=rb,categories={karmada-io}
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Scheduled")].status`,name="SCHEDULED",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="FullyApplied")].status`,name="FULLYAPPLIED",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="AGE",type=date
type ResourceBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the binding.
	// +required
	Spec ResourceBindingSpec `json:"spec"`

	// Status is the observed state of the binding.
	// +optional
	Status ResourceBindingStatus `json:"status,omitempty,omitzero"`
}

// ResourceBindingList is a list of ResourceBinding.
//
// +kubebuilder:object:root=true
type ResourceBindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []ResourceBinding `json:"items"`
}

// ClusterResourceBinding ties a cluster-scoped resource template to its
// cluster propagation policy and records where it is scheduled.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusterresourcebindings,scope=Cluster,shortName=crb,categories={karmada-io}
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Scheduled")].status`,name="SCHEDULED",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="FullyApplied")].status`,name="FULLYAPPLIED",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="AGE",type=date
type ClusterResourceBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the binding.
	// +required
	Spec ResourceBindingSpec `json:"spec"`

	// Status is the observed state of the binding.
	// +optional
	Status ResourceBindingStatus `json:"status,omitempty,omitzero"`
}

// ClusterResourceBindingList is a list of ClusterResourceBinding.
//
// +kubebuilder:object:root=true
type ClusterResourceBindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []ClusterResourceBinding `json:"items"`
}

// ResourceBindingSpec is the desired state of a (Cluster)ResourceBinding.
type ResourceBindingSpec struct {
	// Resource refers to the resource template.
	// +required
	Resource ObjectReference `json:"resource"`

	// PropagateDeps makes the resources the workload depends on follow it.
	// +optional
	PropagateDeps bool `json:"propagateDeps,omitempty"`

	// ReplicaRequirements is what each replica needs.
	// +optional
	ReplicaRequirements *ReplicaRequirements `json:"replicaRequirements,omitempty"`

	// Replicas is the replica count of the workload.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// Components describes the pod templates of a workload with several of
	// them (gate MultiplePodTemplatesScheduling).
	// +optional
	Components []Component `json:"components,omitempty"`

	// Clusters is the scheduling result: the target clusters and their
	// replicas.
	// +optional
	Clusters []TargetCluster `json:"clusters,omitempty"`

	// Placement is a copy of the policy's placement.
	// +optional
	Placement *policyv1alpha1.Placement `json:"placement,omitempty"`

	// GracefulEvictionTasks lists clusters being evicted gracefully: the
	// resources stay there until they are healthy elsewhere or the task
	// times out.
	// +optional
	GracefulEvictionTasks []GracefulEvictionTask `json:"gracefulEvictionTasks,omitempty"`

	// RequiredBy lists the bindings that depend on this one (filled for
	// dependencies propagated through propagateDeps).
	// +optional
	RequiredBy []BindingSnapshot `json:"requiredBy,omitempty"`

	// SchedulerName is the scheduler that handles this binding.
	// +optional
	SchedulerName string `json:"schedulerName,omitempty"`

	// Failover is a copy of the policy's failover behavior.
	// +optional
	Failover *policyv1alpha1.FailoverBehavior `json:"failover,omitempty"`

	// ConflictResolution says what to do when the resource already exists in
	// a member cluster.
	// +kubebuilder:default="Abort"
	// +kubebuilder:validation:Enum=Abort;Overwrite
	// +optional
	ConflictResolution policyv1alpha1.ConflictResolution `json:"conflictResolution,omitempty"`

	// RescheduleTriggeredAt requests a full reschedule when it is later than
	// status.lastScheduledTime.
	// +optional
	RescheduleTriggeredAt *metav1.Time `json:"rescheduleTriggeredAt,omitempty"`

	// Suspension pauses scheduling or dispatching of this binding.
	// +optional
	Suspension *Suspension `json:"suspension,omitempty"`

	// PreserveResourcesOnDeletion keeps the propagated resources in member
	// clusters when the resource template is deleted.
	// +optional
	PreserveResourcesOnDeletion *bool `json:"preserveResourcesOnDeletion,omitempty"`

	// SchedulePriority is the scheduling priority of this binding.
	// +optional
	SchedulePriority *SchedulePriority `json:"schedulePriority,omitempty"`

	// WorkloadAffinityGroups holds the workload's affinity and anti-affinity
	// groups, each "<labelKey>=<labelValue>".
	// +optional
	WorkloadAffinityGroups *WorkloadAffinityGroups `json:"workloadAffinityGroups,omitempty"`
}

// ObjectReference refers to a resource template.
type ObjectReference struct {
	// APIVersion of the referent.
	// +required
	APIVersion string `json:"apiVersion"`

	// Kind of the referent.
	// +required
	Kind string `json:"kind"`

	// Namespace of the referent; empty for cluster-scoped resources.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Name of the referent.
	// +required
	Name string `json:"name"`

	// UID of the referent.
	// +optional
	UID types.UID `json:"uid,omitempty"`

	// ResourceVersion of the referent.
	// +optional
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// ReplicaRequirements is what each replica of a workload needs.
type ReplicaRequirements struct {
	// NodeClaim is the node constraints of a replica.
	// +optional
	NodeClaim *NodeClaim `json:"nodeClaim,omitempty"`

	// ResourceRequest is the resources one replica requests.
	// +optional
	ResourceRequest corev1.ResourceList `json:"resourceRequest,omitempty"`

	// Namespace of the workload.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// PriorityClassName of the workload's pods.
	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`
}

// NodeClaim is the node constraints of a replica.
type NodeClaim struct {
	// HardNodeAffinity is the required node affinity of the pods.
	// +optional
	HardNodeAffinity *corev1.NodeSelector `json:"hardNodeAffinity,omitempty"`

	// NodeSelector is the node selector of the pods.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// Tolerations of the pods.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
}

// Component is one pod template of a workload with several of them.
type Component struct {
	// Name of the component, unique within the workload.
	// +kubebuilder:validation:MaxLength=32
	// +required
	Name string `json:"name"`

	// Replicas of this component.
	// +required
	Replicas int32 `json:"replicas"`

	// ReplicaRequirements is what each replica of this component needs.
	// +optional
	ReplicaRequirements *ComponentReplicaRequirements `json:"replicaRequirements,omitempty"`
}

// ComponentReplicaRequirements is what each replica of a component needs.
type ComponentReplicaRequirements struct {
	// NodeClaim is the node constraints of a replica.
	// +optional
	NodeClaim *NodeClaim `json:"nodeClaim,omitempty"`

	// ResourceRequest is the resources one replica requests.
	// +optional
	ResourceRequest corev1.ResourceList `json:"resourceRequest,omitempty"`

	// PriorityClassName of the component's pods.
	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`
}

// TargetCluster is one cluster of a scheduling result.
type TargetCluster struct {
	// Name of the cluster.
	// +required
	Name string `json:"name"`

	// Replicas assigned to the cluster.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// Components lists the replicas assigned per component.
	// +optional
	Components []TargetComponent `json:"components,omitempty"`
}

// TargetComponent is the replica count of one component in a cluster.
type TargetComponent struct {
	// Name of the component.
	// +required
	Name string `json:"name"`

	// Replicas of the component in the cluster.
	// +required
	Replicas int32 `json:"replicas"`
}

// GracefulEvictionTask records a cluster the resource is being evicted from.
type GracefulEvictionTask struct {
	// FromCluster is the cluster being evicted from.
	// +required
	FromCluster string `json:"fromCluster"`

	// PurgeMode is how the resource is removed from FromCluster.
	// +kubebuilder:validation:Enum=Directly;Gracefully;Never
	// +optional
	PurgeMode policyv1alpha1.PurgeMode `json:"purgeMode,omitempty"`

	// Replicas is the replica count in FromCluster before eviction; nil for
	// resources without replicas.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Reason is a machine-readable CamelCase reason for the eviction.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`
	// +required
	Reason string `json:"reason"`

	// Message is a human-readable explanation.
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Message string `json:"message,omitempty"`

	// Producer is the controller that created the task.
	// +required
	Producer string `json:"producer"`

	// GracePeriodSeconds is how long to wait before removing the resource
	// from FromCluster; the controller's default applies when nil.
	// +optional
	GracePeriodSeconds *int32 `json:"gracePeriodSeconds,omitempty"`

	// SuppressDeletion holds (true) or releases (false) the removal
	// regardless of the grace period.
	// +optional
	SuppressDeletion *bool `json:"suppressDeletion,omitempty"`

	// PreservedLabelState holds the state preserved from FromCluster, to be
	// applied as labels in the new clusters.
	// +optional
	PreservedLabelState map[string]string `json:"preservedLabelState,omitempty"`

	// ClustersBeforeFailover lists the clusters the resource was in before
	// the failover.
	// +optional
	ClustersBeforeFailover []string `json:"clustersBeforeFailover,omitempty"`

	// CreationTimestamp is when the task was created.
	// +optional
	CreationTimestamp *metav1.Time `json:"creationTimestamp,omitempty"`
}

// BindingSnapshot records a binding that depends on this one.
type BindingSnapshot struct {
	// Namespace of the dependent binding.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Name of the dependent binding.
	// +required
	Name string `json:"name"`

	// Clusters is the dependent binding's scheduling result.
	// +optional
	Clusters []TargetCluster `json:"clusters,omitempty"`
}

// Suspension is the policy's suspension plus scheduling suspension.
type Suspension struct {
	policyv1alpha1.Suspension `json:",inline"`

	// Scheduling pauses scheduling of the binding.
	// +optional
	Scheduling *bool `json:"scheduling,omitempty"`
}

// SchedulePriority is the resolved scheduling priority of a binding.
type SchedulePriority struct {
	// Priority is the priority value; higher is scheduled first.
	// +kubebuilder:default=0
	// +optional
	Priority int32 `json:"priority,omitempty"`
}

// WorkloadAffinityGroups holds the affinity groups of a workload.
type WorkloadAffinityGroups struct {
	// AffinityGroup is "<labelKey>=<labelValue>" of the affinity group.
	// +optional
	AffinityGroup string `json:"affinityGroup,omitempty"`

	// AntiAffinityGroup is "<labelKey>=<labelValue>" of the anti-affinity
	// group.
	// +optional
	AntiAffinityGroup string `json:"antiAffinityGroup,omitempty"`
}

// ResourceBindingStatus is the observed state of a (Cluster)ResourceBinding.
type ResourceBindingStatus struct {
	// SchedulerObservedGeneration is the generation the scheduler last
	// handled.
	// +optional
	SchedulerObservedGeneration int64 `json:"schedulerObservedGeneration,omitempty"`

	// SchedulerObservedAffinityName is the name of the cluster affinity term
	// the scheduler last used. Note the JSON key differs from the Go name.
	// +optional
	SchedulerObservedAffinityName string `json:"schedulerObservingAffinityName,omitempty"`

	// Conditions are the latest observations of the binding's state.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// AggregatedStatus collects the status of the resource in each cluster.
	// +optional
	AggregatedStatus []AggregatedStatusItem `json:"aggregatedStatus,omitempty"`

	// LastScheduledTime is when the binding was last scheduled.
	// +optional
	LastScheduledTime *metav1.Time `json:"lastScheduledTime,omitempty"`
}

// AggregatedStatusItem is the status of the resource in one member cluster.
type AggregatedStatusItem struct {
	// ClusterName is the member cluster.
	// +required
	ClusterName string `json:"clusterName"`

	// Status is the resource's status in the member cluster.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Status *runtime.RawExtension `json:"status,omitempty"`

	// Applied says whether the manifest was applied to the cluster.
	// +optional
	Applied bool `json:"applied,omitempty"`

	// AppliedMessage explains a failed apply.
	// +optional
	AppliedMessage string `json:"appliedMessage,omitempty"`

	// Health is the health of the resource in the cluster.
	// +kubebuilder:validation:Enum=Healthy;Unhealthy;Unknown
	// +optional
	Health ResourceHealth `json:"health,omitempty"`
}

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

// Condition types of a (Cluster)ResourceBinding.
const (
	// Scheduled reports the result of the last scheduling attempt.
	Scheduled string = "Scheduled"
	// FullyApplied reports whether the resource is applied to every target
	// cluster.
	FullyApplied string = "FullyApplied"
)

// Reasons of the Scheduled condition.
const (
	// BindingReasonSuccess means scheduling succeeded.
	BindingReasonSuccess = "Success"
	// BindingReasonSchedulerError means scheduling failed for another reason.
	BindingReasonSchedulerError = "SchedulerError"
	// BindingReasonNoClusterFit means no cluster passed the filters.
	BindingReasonNoClusterFit = "NoClusterFit"
	// BindingReasonUnschedulable means the clusters lack available replicas.
	BindingReasonUnschedulable = "Unschedulable"
	// BindingReasonQuotaExceeded means a FederatedResourceQuota rejected the
	// result.
	BindingReasonQuotaExceeded = "QuotaExceeded"
)

// BindingScheduleSuccessMessage is the message of Scheduled=True/Success
// (Karmada's string), also the start of the ScheduleBindingSucceed event.
const BindingScheduleSuccessMessage = "Binding has been scheduled successfully."
