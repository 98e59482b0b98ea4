package names

// Controller names of the binding controllers (event sources and
// controller-runtime names), Karmada's exact strings.
const (
	BindingControllerName                = "binding-controller"
	ClusterResourceBindingControllerName = "cluster-resource-binding-controller"
)
