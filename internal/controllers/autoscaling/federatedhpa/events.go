package federatedhpa

// Event reasons of the FederatedHPA controller (Kubernetes' HPA and
// Karmada's), on the FederatedHPA. A failed scale records the event
// reason of its scaleError (conditions.go).
const (
	EventReasonSuccessfulRescale            = "SuccessfulRescale"
	EventReasonFailedRescale                = "FailedRescale"
	EventReasonFailedComputeMetricsReplicas = "FailedComputeMetricsReplicas"
	EventReasonFailedUpdateStatus           = "FailedUpdateStatus"
	EventReasonSelectorRequired             = "SelectorRequired"
)
