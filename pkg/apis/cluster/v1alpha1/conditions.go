package v1alpha1

// Reasons and messages of the Ready and CompleteAPIEnablements conditions
// the cluster controllers write on a Cluster (Karmada's exact strings,
// appendix B of the reference).
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
