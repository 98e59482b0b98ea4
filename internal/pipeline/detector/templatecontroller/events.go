package templatecontroller

// Event reasons on templates (Karmada's).
const (
	// ReasonApplyPolicySucceed: the binding was created or updated from the policy.
	ReasonApplyPolicySucceed = "ApplyPolicySucceed"
	// ReasonApplyPolicyFailed: claiming the template or writing its binding failed.
	ReasonApplyPolicyFailed = "ApplyPolicyFailed"
	// ReasonGetReplicasSucceed: the replicas written to the binding were
	// interpreted from the template.
	ReasonGetReplicasSucceed = "GetReplicasSucceed"
	// ReasonGetReplicasFailed: the template's replicas could not be
	// interpreted, so no binding was written.
	ReasonGetReplicasFailed = "GetReplicasFailed"
	// ReasonGetComponentsSucceed: the components (pod templates) written
	// to the binding were interpreted from the template.
	ReasonGetComponentsSucceed = "GetComponentsSucceed"
	// ReasonGetComponentsFailed: the template's components could not be
	// interpreted, so no binding was written.
	ReasonGetComponentsFailed = "GetComponentsFailed"
)
