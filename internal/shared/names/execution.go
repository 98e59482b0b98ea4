package names

// Controller names of the execution and status path (Karmada's names; they
// are also the event source components).
const (
	ExecutionControllerName                    = "execution-controller"
	WorkStatusControllerName                   = "work-status-controller"
	ResourceBindingStatusControllerName        = "resource-binding-status-controller"
	ClusterResourceBindingStatusControllerName = "cluster-resource-binding-status-controller"
)
