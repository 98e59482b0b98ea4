package names

// Controller names (event sources and controller-runtime names).
const (
	ClusterControllerName       = "cluster-controller"
	ClusterStatusControllerName = "cluster-status-controller"
	NamespaceSyncControllerName = "namespace-sync-controller"
)
