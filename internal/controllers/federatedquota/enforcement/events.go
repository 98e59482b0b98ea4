package enforcement

// Event reasons (Karmada's).
const (
	EventReasonCollectOverallStatusSucceed = "CollectOverallStatusSucceed"
	EventReasonCollectOverallStatusFailed  = "CollectOverallStatusFailed"
)
