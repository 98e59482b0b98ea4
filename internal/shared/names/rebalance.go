package names

// Controller names of the WorkloadRebalancer and Remedy controllers
// (controller-runtime names; Karmada's).
const (
	WorkloadRebalancerControllerName = "workload-rebalancer"
	RemedyControllerName             = "remedy-controller"
)
