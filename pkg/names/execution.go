package names

import (
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Controller names of the execution and status path (Karmada's names; they
// are also the event source components).
const (
	ExecutionControllerName                    = "execution-controller"
	WorkStatusControllerName                   = "work-status-controller"
	ResourceBindingStatusControllerName        = "resource-binding-status-controller"
	ClusterResourceBindingStatusControllerName = "cluster-resource-binding-status-controller"
)

// Deprecated: the Work and binding condition vocabulary lives in
// pkg/apis/work/v1alpha1 and v1alpha2; these aliases go once every user
// has moved.
const (
	WorkAppliedSuccessfulReason    = workv1alpha1.WorkAppliedSuccessfulReason
	WorkAppliedFailedReason        = workv1alpha1.WorkAppliedFailedReason
	WorkAppliedSuccessfulMessage   = workv1alpha1.WorkAppliedSuccessfulMessage
	WorkAppliedFailedMessageFormat = workv1alpha1.WorkAppliedFailedMessageFormat
	WorkDispatchingReason          = workv1alpha1.WorkDispatchingReason
	WorkDispatchingMessage         = workv1alpha1.WorkDispatchingMessage
	WorkSuspendDispatchingReason   = workv1alpha1.WorkSuspendDispatchingReason
	WorkSuspendDispatchingMessage  = workv1alpha1.WorkSuspendDispatchingMessage
	FullyAppliedSuccessReason      = workv1alpha2.FullyAppliedSuccessReason
	FullyAppliedFailedReason       = workv1alpha2.FullyAppliedFailedReason
	FullyAppliedSuccessMessage     = workv1alpha2.FullyAppliedSuccessMessage
	FullyAppliedFailedMessage      = workv1alpha2.FullyAppliedFailedMessage
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
