package lifecycle

// Event reasons the cluster controller records on a Cluster (Karmada's).
const (
	EventReasonCreateExecutionSpaceSucceed = "CreateExecutionSpaceSucceed"
	EventReasonCreateExecutionSpaceFailed  = "CreateExecutionSpaceFailed"
	EventReasonRemoveExecutionSpaceSucceed = "RemoveExecutionSpaceSucceed"
	EventReasonRemoveExecutionSpaceFailed  = "RemoveExecutionSpaceFailed"
	EventReasonTaintClusterSucceed         = "TaintClusterSucceed"
	EventReasonTaintClusterFailed          = "TaintClusterFailed"
)
