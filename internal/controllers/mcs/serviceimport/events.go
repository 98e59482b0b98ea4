package serviceimport

// Event reasons (Karmada's), on the ServiceImport.
const (
	EventReasonSyncDerivedServiceSucceed = "SyncDerivedServiceSucceed"
	EventReasonSyncDerivedServiceFailed  = "SyncDerivedServiceFailed"
)
