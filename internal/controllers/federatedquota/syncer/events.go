package syncer

// Event reasons (Karmada's).
const (
	EventReasonSyncWorkSucceed = "SyncWorkSucceed"
	EventReasonSyncWorkFailed  = "SyncWorkFailed"
)
