package status

// Event reasons (Karmada's).
const (
	EventReasonAggregateStatusSucceed = "AggregateStatusSucceed"
	EventReasonAggregateStatusFailed  = "AggregateStatusFailed"
)
