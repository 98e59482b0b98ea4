package framework

import (
	"github.com/propel-mc/propel/internal/scheduling/scheduler/affinity"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// BindingInfo is the read-only view of one binding for one scheduling
// attempt, with the lookups every plugin needs computed once.
type BindingInfo struct {
	Spec *workv1alpha2.ResourceBindingSpec
	// AffinityName is the clusterAffinities term this attempt uses.
	AffinityName string
	// Targets maps the clusters of spec.clusters to their replicas.
	Targets map[string]int32
	// Evicting holds the fromCluster of every graceful eviction task.
	Evicting map[string]struct{}
	// Affinity is the effective cluster affinity of this attempt
	// (primary term plus, for workloads, overflow terms); nil means none.
	Affinity *affinity.Term
	// Workload tells whether the binding carries replicas (replicas > 0,
	// replicaRequirements set, or components).
	Workload bool
	// Peers is where the members of the binding's workload affinity groups
	// run (gate WorkloadAffinity); nil means no constraint.
	Peers *WorkloadPeers
}

// NewBindingInfo builds the view of spec for the affinity term named
// affinityName (ignored when the placement uses clusterAffinity).
func NewBindingInfo(spec *workv1alpha2.ResourceBindingSpec, affinityName string) *BindingInfo {
	b := &BindingInfo{
		Spec:         spec,
		AffinityName: affinityName,
		Targets:      make(map[string]int32, len(spec.Clusters)),
		Workload:     spec.IsWorkload(),
	}
	for _, tc := range spec.Clusters {
		b.Targets[tc.Name] = tc.Replicas
	}
	if len(spec.GracefulEvictionTasks) > 0 {
		b.Evicting = make(map[string]struct{}, len(spec.GracefulEvictionTasks))
		for _, task := range spec.GracefulEvictionTasks {
			b.Evicting[task.FromCluster] = struct{}{}
		}
	}
	b.Affinity = affinity.EffectiveTerm(spec.Placement, affinityName, b.Workload)
	return b
}

// Targeted reports whether cluster is in spec.clusters.
func (b *BindingInfo) Targeted(cluster string) bool {
	_, ok := b.Targets[cluster]
	return ok
}
