package names

// Controller names of the execution and status path (Karmada's names; they
// are also the event source components).
const (
	ExecutionControllerName                    = "execution-controller"
	WorkStatusControllerName                   = "work-status-controller"
	ResourceBindingStatusControllerName        = "resource-binding-status-controller"
	ClusterResourceBindingStatusControllerName = "cluster-resource-binding-status-controller"
)

// Event reasons of the execution and status controllers (Appendix C).
const (
	EventReasonSyncSucceed            = "SyncSucceed"
	EventReasonSyncFailed             = "SyncFailed"
	EventReasonWorkDispatching        = "WorkDispatching"
	EventReasonReflectStatusSucceed   = "ReflectStatusSucceed"
	EventReasonReflectStatusFailed    = "ReflectStatusFailed"
	EventReasonInterpretHealthSucceed = "InterpretHealthSucceed"
	EventReasonInterpretHealthFailed  = "InterpretHealthFailed"
	EventReasonAggregateStatusSucceed = "AggregateStatusSucceed"
	EventReasonAggregateStatusFailed  = "AggregateStatusFailed"
)

// ConflictResolutionRefusedMsgFormat is the error (kind, namespace, name,
// cluster, conflict-resolution annotation key) when an existing member
// object that Karmada does not manage is not overwritten.
const ConflictResolutionRefusedMsgFormat = "resource(kind=%s, %s/%s) already exists in the cluster %s and the %s strategy value is empty, Karmada will not manage this resource"
