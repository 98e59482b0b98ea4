package names

// Condition reasons and messages the cluster controllers write on a
// Cluster (Karmada's exact strings, appendix B of the reference).
const (
	ClusterReasonReady                  = "ClusterReady"
	ClusterMessageReady                 = "cluster is healthy and ready to accept workloads"
	ClusterReasonNotReady               = "ClusterNotReady"
	ClusterMessageNotReady              = "cluster is reachable but health endpoint responded without ok"
	ClusterReasonNotReachable           = "ClusterNotReachable"
	ClusterMessageNotReachable          = "cluster is not reachable"
	ClusterReasonStatusCollectionFailed = "StatusCollectionFailed"
	ClusterMessageClientFailedPrefix    = "failed to create a ClusterClient: "
	ClusterReasonStatusNeverUpdated     = "ClusterStatusNeverUpdated"
	ClusterMessageStatusNeverUpdated    = "Cluster status controller never posted cluster status."
	ClusterReasonStatusUnknown          = "ClusterStatusUnknown"
	ClusterMessageStatusUnknown         = "Cluster status controller stopped posting cluster status."
	APIEnablementsReasonComplete        = "Complete"
	APIEnablementsMessageComplete       = "collected complete APIEnablements from the cluster"
	APIEnablementsReasonPartial         = "Partial"
	APIEnablementsMessagePartialFormat  = "might collect partial APIEnablements(%d) from the cluster"
	APIEnablementsReasonEmpty           = "Empty"
	APIEnablementsMessageEmpty          = "collected empty APIEnablements from the cluster"
)

// Event reasons of the cluster controller.
const (
	EventReasonCreateExecutionSpaceSucceed = "CreateExecutionSpaceSucceed"
	EventReasonCreateExecutionSpaceFailed  = "CreateExecutionSpaceFailed"
	EventReasonRemoveExecutionSpaceSucceed = "RemoveExecutionSpaceSucceed"
	EventReasonRemoveExecutionSpaceFailed  = "RemoveExecutionSpaceFailed"
	EventReasonTaintClusterSucceed         = "TaintClusterSucceed"
	EventReasonTaintClusterFailed          = "TaintClusterFailed"
)

// Controller names (event sources and controller-runtime names).
const (
	ClusterControllerName       = "cluster-controller"
	ClusterStatusControllerName = "cluster-status-controller"
	NamespaceSyncControllerName = "namespace-sync-controller"
)
