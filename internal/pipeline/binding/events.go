package binding

// Event reasons of the binding controllers and the override manager
// (Karmada's strings, appendix C of the reference).
const (
	// EventReasonSyncWorkSucceed is recorded on a binding and its template
	// when its Works were written.
	EventReasonSyncWorkSucceed = "SyncWorkSucceed"
	// EventReasonSyncWorkFailed is recorded on a binding and its template
	// when a Work could not be rendered or written.
	EventReasonSyncWorkFailed = "SyncWorkFailed"
	// EventReasonCleanupWorkFailed is recorded on a binding when a Work of a
	// cluster that is no longer a target could not be deleted.
	EventReasonCleanupWorkFailed = "CleanupWorkFailed"
	// EventReasonApplyOverridePolicySucceed is recorded on a template for
	// each override policy applied for a cluster.
	EventReasonApplyOverridePolicySucceed = "ApplyOverridePolicySucceed"
	// EventReasonApplyOverridePolicyFailed is recorded on a template (and,
	// in Propel, on its binding) when an override policy failed to apply.
	EventReasonApplyOverridePolicyFailed = "ApplyOverridePolicyFailed"
)
