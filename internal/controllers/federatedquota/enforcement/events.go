package enforcement

import "github.com/propel-mc/propel/internal/controllers/federatedquota/quotastep"

// Event reasons (Karmada's).
const (
	EventReasonCollectOverallStatusSucceed = "CollectOverallStatusSucceed"
	EventReasonCollectOverallStatusFailed  = "CollectOverallStatusFailed"
)

var collectOverallStatus = quotastep.Step{
	Action:       "Collect overall status of",
	FailedReason: EventReasonCollectOverallStatusFailed, SucceededReason: EventReasonCollectOverallStatusSucceed,
}
