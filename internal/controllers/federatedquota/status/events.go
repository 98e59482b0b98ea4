package status

import "github.com/propel-mc/propel/internal/controllers/federatedquota/quotastep"

// Event reasons (Karmada's).
const (
	EventReasonAggregateStatusSucceed = "AggregateStatusSucceed"
	EventReasonAggregateStatusFailed  = "AggregateStatusFailed"
)

var aggregateStatus = quotastep.Step{
	Action:       "Collect status of",
	FailedReason: EventReasonAggregateStatusFailed, SucceededReason: EventReasonAggregateStatusSucceed,
}
