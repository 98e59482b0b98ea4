package syncer

import "github.com/propel-mc/propel/internal/controllers/federatedquota/quotastep"

// Event reasons (Karmada's).
const (
	EventReasonSyncWorkSucceed = "SyncWorkSucceed"
	EventReasonSyncWorkFailed  = "SyncWorkFailed"
)

var syncWorks = quotastep.Step{
	Action:       "Sync works for",
	FailedReason: EventReasonSyncWorkFailed, SucceededReason: EventReasonSyncWorkSucceed,
}
