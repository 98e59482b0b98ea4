package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	knownTypes = append(knownTypes, &Cluster{}, &ClusterList{})
}

// Resource identification of the Cluster kind.
const (
	// ResourceKindCluster is the kind name of Cluster.
	ResourceKindCluster = "Cluster"
	// ResourceSingularCluster is the singular resource name of Cluster.
	ResourceSingularCluster = "cluster"
	// ResourcePluralCluster is the plural resource name of Cluster.
	ResourcePluralCluster = "clusters"
	// ResourceNamespaceScopedCluster tells whether Cluster is namespace scoped (it is not).
	ResourceNamespaceScopedCluster = false
)

// Well-known taint keys that the cluster controllers put on a Cluster.
const (
	// TaintClusterNotReady is added when the cluster's Ready condition is False.
	TaintClusterNotReady = "cluster.karmada.io/not-ready"
	// TaintClusterUnreachable is added when the cluster's Ready condition is Unknown.
	TaintClusterUnreachable = "cluster.karmada.io/unreachable"
	// TaintClusterUnscheduler marks a cluster as unschedulable. The Go name follows Karmada's.
	TaintClusterUnscheduler = "cluster.karmada.io/unschedulable"
)

// Condition types reported in ClusterStatus.Conditions.
const (
	// ClusterConditionReady tells whether the cluster is healthy and ready to accept workloads.
	ClusterConditionReady = "Ready"
	// ClusterConditionCompleteAPIEnablements tells whether status.apiEnablements lists every
	// API the member cluster serves (False when discovery only partially succeeded).
	ClusterConditionCompleteAPIEnablements = "CompleteAPIEnablements"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusters,scope=Cluster,categories={karmada-io}
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="VERSION",type=string,JSONPath=`.status.kubernetesVersion`
// +kubebuilder:printcolumn:name="MODE",type=string,JSONPath=`.spec.syncMode`
// +kubebuilder:printcolumn:name="READY",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="APIENDPOINT",type=string,JSONPath=`.spec.apiEndpoint`,priority=1

// Cluster represents the desired state and status of a member cluster.
type Cluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec represents the specification of the desired behavior of member cluster.
	// +required
	Spec ClusterSpec `json:"spec"`

	// Status represents the status of member cluster.
	// +optional
	Status ClusterStatus `json:"status,omitempty,omitzero"`
}

// ClusterSyncMode describes how resources are synced between the Karmada control
// plane and a member cluster.
type ClusterSyncMode string

const (
	// Push means the Karmada control plane deploys resources to the member cluster directly.
	Push ClusterSyncMode = "Push"
	// Pull means an agent in the member cluster pulls resources from the Karmada control plane.
	Pull ClusterSyncMode = "Pull"
)

// ClusterSpec defines the desired state of a member cluster.
type ClusterSpec struct {
	// ID is the unique identifier of the cluster. It differs from .metadata.uid and
	// is normally collected from the member cluster at registration: the value of the
	// ClusterProperty 'cluster.clusterset.k8s.io' if the cluster defines one, otherwise
	// the uid of the member's 'kube-system' namespace.
	// Do not change it: it identifies the cluster across Karmada and may be used to
	// compose the DNS names of multi-cluster services.
	// +optional
	ID string `json:"id,omitempty"`

	// SyncMode describes how a cluster syncs resources from the Karmada control plane.
	// +kubebuilder:validation:Enum=Push;Pull
	// +required
	SyncMode ClusterSyncMode `json:"syncMode"`

	// APIEndpoint is the API endpoint of the member cluster: a hostname,
	// hostname:port, IP or IP:port.
	// +optional
	APIEndpoint string `json:"apiEndpoint,omitempty"`

	// SecretRef references the Secret holding the credentials used to access the
	// member cluster, in the keys 'token' and 'caBundle'.
	// +optional
	SecretRef *LocalSecretReference `json:"secretRef,omitempty"`

	// ImpersonatorSecretRef references the Secret holding the impersonator's token,
	// in the key 'token'.
	// +optional
	ImpersonatorSecretRef *LocalSecretReference `json:"impersonatorSecretRef,omitempty"`

	// InsecureSkipTLSVerification disables verification of the member cluster's
	// serving certificate, which makes the connection insecure. Defaults to false.
	// +optional
	InsecureSkipTLSVerification bool `json:"insecureSkipTLSVerification,omitempty"`

	// ProxyURL is the URL of the proxy used to reach the cluster, if any.
	// See https://github.com/kubernetes/client-go/issues/351.
	// +optional
	ProxyURL string `json:"proxyURL,omitempty"`

	// ProxyHeader holds HTTP headers required by the proxy server, keyed by header
	// name. Multiple values of one header are separated by commas (e.g. 'k1': 'v1,v2,v3').
	// +optional
	ProxyHeader map[string]string `json:"proxyHeader,omitempty"`

	// Provider is the cloud provider name of the member cluster.
	// +optional
	Provider string `json:"provider,omitempty"`

	// Region is the region in which the member cluster is located.
	// +optional
	Region string `json:"region,omitempty"`

	// Zone is the zone in which the member cluster is located.
	// Deprecated: never used by Karmada and kept only for backward compatibility; use Zones.
	// +optional
	Zone string `json:"zone,omitempty"`

	// Zones are the failure (availability) zones the member cluster runs in; a list
	// because one cluster can span several zones.
	// +optional
	Zones []string `json:"zones,omitempty"`

	// Taints attached to the member cluster. Resources that do not tolerate a taint
	// are affected by its effect.
	// +optional
	Taints []corev1.Taint `json:"taints,omitempty"`

	// ResourceModels is the list of resource models (grades) of this cluster, used to
	// summarize allocatable node resources. Range names must be one of cpu, memory,
	// storage, ephemeral-storage. When unset, a default model with grades 0..8 is used:
	// grade 0 is cpu [0,1) and memory [0,4Gi); grade 1 is cpu [1,2) and memory
	// [4Gi,16Gi); grade k (2..7) is cpu [2^(k-1),2^k) and memory [2^(k+2),2^(k+3))Gi;
	// grade 8 is cpu [128,inf) and memory [1024Gi,inf). The max of the last grade
	// always means infinity, whatever value is given.
	// +optional
	ResourceModels []ResourceModel `json:"resourceModels,omitempty"`
}

// ResourceName is the name of a resource used in resource modeling.
type ResourceName string

// Resource names accepted in ResourceModelRange.Name.
const (
	// ResourceCPU is CPU, in cores (e.g. 500m = .5 cores).
	ResourceCPU ResourceName = "cpu"
	// ResourceMemory is memory, in bytes.
	ResourceMemory ResourceName = "memory"
	// ResourceStorage is volume size, in bytes.
	ResourceStorage ResourceName = "storage"
	// ResourceEphemeralStorage is local ephemeral storage, in bytes.
	ResourceEphemeralStorage ResourceName = "ephemeral-storage"
)

// ResourceModel describes one grade of the resource modeling.
type ResourceModel struct {
	// Grade is the index of this resource model.
	// +required
	Grade uint `json:"grade"`

	// Ranges describes the resource quota ranges of this grade.
	// +required
	Ranges []ResourceModelRange `json:"ranges"`
}

// ResourceModelRange describes the quota range [Min, Max) of one resource in a
// resource model grade: min is inclusive and max exclusive, and max must be
// greater than min. The ranges of all grades should form a continuous interval.
type ResourceModelRange struct {
	// Name is the name of the resource being categorized.
	// +required
	Name ResourceName `json:"name"`

	// Min is the inclusive lower bound. The Min of the first grade always acts as zero.
	// +required
	Min resource.Quantity `json:"min"`

	// Max is the exclusive upper bound. For the last grade it means infinity,
	// whatever value is given.
	// +required
	Max resource.Quantity `json:"max"`
}

// LocalSecretReference is a reference to a Secret by namespace and name.
type LocalSecretReference struct {
	// Namespace is the namespace of the referenced Secret.
	// +required
	Namespace string `json:"namespace"`

	// Name is the name of the referenced Secret.
	// +required
	Name string `json:"name"`
}

// ClusterStatus contains information about the current status of a cluster,
// updated periodically by the cluster status controller.
type ClusterStatus struct {
	// KubernetesVersion is the Kubernetes version of the member cluster.
	// +optional
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`

	// APIEnablements lists the APIs installed on the member cluster.
	// +optional
	APIEnablements []APIEnablement `json:"apiEnablements,omitempty"`

	// Conditions is an array of current cluster conditions.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// NodeSummary summarizes the status of the nodes in the member cluster.
	// +optional
	NodeSummary *NodeSummary `json:"nodeSummary,omitempty"`

	// ResourceSummary summarizes the resources of the member cluster.
	// +optional
	ResourceSummary *ResourceSummary `json:"resourceSummary,omitempty"`

	// RemedyActions lists the remedy actions to perform on the cluster.
	// +optional
	RemedyActions []string `json:"remedyActions,omitempty"`
}

// APIEnablement lists the resources served in one API group and version.
type APIEnablement struct {
	// GroupVersion is the group and version this APIEnablement is for.
	// +required
	GroupVersion string `json:"groupVersion"`

	// Resources is the list of resources served in this group version.
	// +optional
	Resources []APIResource `json:"resources,omitempty"`
}

// APIResource gives the plural name and kind of a resource.
type APIResource struct {
	// Name is the plural name of the resource.
	// +required
	Name string `json:"name"`

	// Kind is the kind of the resource (e.g. 'Deployment' for 'deployments').
	// +required
	Kind string `json:"kind"`
}

// NodeSummary summarizes the status of the nodes of a cluster.
type NodeSummary struct {
	// TotalNum is the total number of nodes in the cluster.
	// +optional
	TotalNum int32 `json:"totalNum,omitempty"`

	// ReadyNum is the number of ready nodes in the cluster.
	// +optional
	ReadyNum int32 `json:"readyNum,omitempty"`
}

// ResourceSummary summarizes the resources of a member cluster.
type ResourceSummary struct {
	// Allocatable is the total allocatable resources of all nodes, available for scheduling.
	// +optional
	Allocatable corev1.ResourceList `json:"allocatable,omitempty"`

	// Allocating is the total resources requested by Pods still waiting for scheduling.
	// +optional
	Allocating corev1.ResourceList `json:"allocating,omitempty"`

	// Allocated is the total resources requested by Pods already scheduled to nodes.
	// +optional
	Allocated corev1.ResourceList `json:"allocated,omitempty"`

	// AllocatableModelings is the per-grade node count of the resource modeling.
	// +optional
	AllocatableModelings []AllocatableModeling `json:"allocatableModelings,omitempty"`
}

// AllocatableModeling gives the number of nodes whose allocatable resources fall
// into one resource model grade; e.g. {grade: 2, count: 10} means 10 nodes are in grade 2.
type AllocatableModeling struct {
	// Grade is the index of the ResourceModel.
	// +required
	Grade int `json:"grade"`

	// Count is the number of nodes in this grade.
	// +required
	Count int `json:"count"`
}

// +kubebuilder:object:root=true

// ClusterList contains a list of member clusters.
type ClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items holds a list of Cluster.
	Items []Cluster `json:"items"`
}
