package v1alpha1

// Reasons and messages of the Applied and Dispatching conditions the
// execution controller writes on a Work (Karmada's, appendix B of the
// reference).
const (
	WorkAppliedSuccessfulReason    = "AppliedSuccessful"
	WorkAppliedFailedReason        = "AppliedFailed"
	WorkAppliedSuccessfulMessage   = "Manifest has been successfully applied"
	WorkAppliedFailedMessageFormat = "Failed to apply all manifests (%d/%d): %s"
	WorkDispatchingReason          = "Dispatching"
	WorkDispatchingMessage         = "Work is being dispatched to member clusters."
	WorkSuspendDispatchingReason   = "SuspendDispatching"
	WorkSuspendDispatchingMessage  = "Work dispatching is in a suspended state."
)
