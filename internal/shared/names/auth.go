package names

// Controller names (event sources and controller-runtime names).
const (
	UnifiedAuthControllerName       = "unified-auth-controller"
	AgentCSRApprovingControllerName = "agent-csr-approving-controller"
)

// ImpersonatorName names what the unified-auth controller propagates to
// every member with an impersonator: the ClusterRole, its binding, and
// the impersonator's ServiceAccount they bind.
const ImpersonatorName = "karmada-impersonator"
