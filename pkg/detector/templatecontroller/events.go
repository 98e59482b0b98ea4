package templatecontroller

// Event reasons on templates (Karmada's).
const (
	// ReasonApplyPolicySucceed: the binding was created or updated from the policy.
	ReasonApplyPolicySucceed = "ApplyPolicySucceed"
	// ReasonApplyPolicyFailed: claiming the template or writing its binding failed.
	ReasonApplyPolicyFailed = "ApplyPolicyFailed"
)
