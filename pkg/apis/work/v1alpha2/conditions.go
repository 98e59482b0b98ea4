package v1alpha2

// Reasons and messages of the FullyApplied condition the binding status
// controller writes on a ResourceBinding or ClusterResourceBinding
// (Karmada's, appendix B of the reference).
const (
	FullyAppliedSuccessReason  = "FullyAppliedSuccess"
	FullyAppliedFailedReason   = "FullyAppliedFailed"
	FullyAppliedSuccessMessage = "All works have been successfully applied"
	FullyAppliedFailedMessage  = "Failed to apply all works, see status.aggregatedStatus for details"
)
