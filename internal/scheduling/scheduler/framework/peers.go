package framework

import (
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// WorkloadPeers is where the other members of a binding's workload
// affinity groups (spec.workloadAffinityGroups, same namespace) run, as
// the WorkloadAffinity and WorkloadAntiAffinity filters need it: sets the
// filters test in constant time per cluster.
type WorkloadPeers struct {
	// Colocate, when non-nil, holds the clusters that every other member
	// of the affinity group with a placement targets. Nil when the binding
	// has no affinity group or no other member has a placement yet: the
	// first workload of a group is not constrained.
	Colocate map[string]struct{}
	// Separate holds the clusters that any other member of the
	// anti-affinity group targets.
	Separate map[string]struct{}
}

// WorkloadPeerLookup finds the workload peers of a binding, once per
// scheduling decision. Nil peers mean no constraint.
type WorkloadPeerLookup interface {
	Peers(spec *workv1alpha2.ResourceBindingSpec) *WorkloadPeers
}
