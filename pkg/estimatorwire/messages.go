package estimatorwire

// The messages of pkg/estimator/pb/estimator.proto (Karmada), field numbers
// in the comments. Reserved fields (the pre-1.19 nodeAffinity,
// tolerations, resourceRequest) are neither written nor read.

// NodeClaim is the node constraints of a replica.
type NodeClaim struct {
	NodeSelector map[string]string // 2
	// NodeAffinityBytes is a protobuf-encoded corev1.NodeSelector.
	NodeAffinityBytes []byte // 4
	// TolerationsBytes are protobuf-encoded corev1.Tolerations.
	TolerationsBytes [][]byte // 5
}

// ReplicaRequirements is what each replica needs.
type ReplicaRequirements struct {
	NodeClaim         *NodeClaim // 1
	Namespace         string     // 3
	PriorityClassName string     // 4
	// ResourceRequestBytes maps a resource name to a protobuf-encoded
	// resource.Quantity.
	ResourceRequestBytes map[string][]byte // 5
}

// ComponentReplicaRequirements is what each replica of a component needs.
type ComponentReplicaRequirements struct {
	NodeClaim            *NodeClaim        // 1
	PriorityClassName    string            // 3
	ResourceRequestBytes map[string][]byte // 4
}

// Component is one pod template of a workload set.
type Component struct {
	Name                string                       // 1
	ReplicaRequirements ComponentReplicaRequirements // 2
	Replicas            int32                        // 3
}

// AssumedWorkload is a workload placed on the cluster by the scheduler
// whose pods are not bound yet.
type AssumedWorkload struct {
	Namespace  string      // 1
	Components []Component // 2
}

// MaxAvailableReplicasRequest asks how many replicas a cluster can hold.
type MaxAvailableReplicasRequest struct {
	Cluster             string              // 1
	ReplicaRequirements ReplicaRequirements // 2
	AssumedWorkloads    []AssumedWorkload   // 3
}

// MaxAvailableReplicasResponse answers MaxAvailableReplicasRequest.
type MaxAvailableReplicasResponse struct {
	MaxReplicas int32 // 1
}

// MaxAvailableComponentSetsRequest asks how many complete sets of
// components a cluster can hold.
type MaxAvailableComponentSetsRequest struct {
	Cluster          string            // 1
	Components       []Component       // 2
	Namespace        string            // 3
	AssumedWorkloads []AssumedWorkload // 4
}

// MaxAvailableComponentSetsResponse answers MaxAvailableComponentSetsRequest.
type MaxAvailableComponentSetsResponse struct {
	MaxSets int32 // 1
}

// ObjectReference locates a resource in the member cluster.
type ObjectReference struct {
	APIVersion string // 1
	Kind       string // 2
	Namespace  string // 3
	Name       string // 4
}

// UnschedulableReplicasRequest asks how many replicas of a workload have
// been unschedulable for longer than the threshold.
type UnschedulableReplicasRequest struct {
	Cluster  string          // 1
	Resource ObjectReference // 2
	// UnschedulableThreshold is a time.Duration in nanoseconds.
	UnschedulableThreshold int64 // 3
}

// UnschedulableReplicasResponse answers UnschedulableReplicasRequest.
type UnschedulableReplicasResponse struct {
	UnschedulableReplicas int32 // 1
}
