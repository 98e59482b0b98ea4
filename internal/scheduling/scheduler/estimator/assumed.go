package estimator

import workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"

// AssumedWorkload is a workload the scheduler placed on a cluster whose
// pods the cluster may not run yet (Karmada's assumed workload, gate
// SchedulingOvercommitProtection): a single-template workload is one
// component, named after the resource, with the replicas placed there.
type AssumedWorkload struct {
	Namespace  string
	Components []workv1alpha2.Component
}

// Assumptions lists the workloads assumed on each cluster; the scheduler's
// assume cache implements it when the gate is on.
type Assumptions interface {
	// AssumedWorkloads returns the workloads assumed on cluster, the most
	// recently assumed first. The result is shared: callers must not
	// modify it.
	AssumedWorkloads(cluster string) []AssumedWorkload
}
