package unifiedauth

// Event reasons of the unified-auth controller (Karmada's strings),
// recorded on the Cluster after each sync.
const (
	// EventReasonSyncImpersonationConfigSucceed: the member's
	// impersonation ClusterRole and binding were written (or already up to
	// date).
	EventReasonSyncImpersonationConfigSucceed = "SyncImpersonationConfigSucceed"
	// EventReasonSyncImpersonationConfigFailed: they could not be; the
	// message is the error.
	EventReasonSyncImpersonationConfigFailed = "SyncImpersonationConfigFailed"
)

// syncSucceededMessage is the message of
// EventReasonSyncImpersonationConfigSucceed (Karmada's text).
const syncSucceededMessage = "Sync impersonation config succeed."
