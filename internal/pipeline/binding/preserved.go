package binding

import (
	"slices"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// preserved is the state an eviction carried over (gate
// StatefulFailoverInjection): labels for the manifest of a cluster the
// workload did not run in before the failover.
type preserved struct {
	labels map[string]string
	// before are the clusters of the binding before the failover; they
	// get no labels.
	before []string
}

// preservedLabels returns what Karmada injects when rendering targets, or
// nil: the binding renders exactly one target and its last eviction task
// is Directly, with preserved labels. Gracefully and Never tasks never
// inject (the old copy keeps running, so its state is not handed over).
func preservedLabels(spec *workv1alpha2.ResourceBindingSpec, targets []workv1alpha2.TargetCluster) *preserved {
	if len(targets) != 1 || len(spec.GracefulEvictionTasks) == 0 {
		return nil
	}
	last := spec.GracefulEvictionTasks[len(spec.GracefulEvictionTasks)-1]
	if last.PurgeMode != policyv1alpha1.PurgeModeDirectly || len(last.PreservedLabelState) == 0 {
		return nil
	}
	return &preserved{labels: last.PreservedLabelState, before: last.ClustersBeforeFailover}
}

// appliesTo reports whether the labels go into cluster's manifest.
func (p *preserved) appliesTo(cluster string) bool {
	return p != nil && !slices.Contains(p.before, cluster)
}
