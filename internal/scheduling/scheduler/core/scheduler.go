package core

import (
	"fmt"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/estimator"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/metrics"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/plugins"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/validation"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Scheduler runs scheduling attempts. It is safe for concurrent use.
type Scheduler struct {
	Plugins   *plugins.Set
	Estimator *estimator.Set
	// EnableEmptyWorkloadPropagation lists selected clusters that got no
	// replicas with 0 replicas (--enable-empty-workload-propagation).
	EnableEmptyWorkloadPropagation bool
	// WorkloadPeers tells where the members of a binding's workload
	// affinity groups run (gate WorkloadAffinity); nil: groups are ignored.
	WorkloadPeers framework.WorkloadPeerLookup

	// PluginSamples picks the attempts that time their plugin calls;
	// nil is the process's metrics.DefaultPluginSampler.
	PluginSamples *metrics.PluginSampler
}

// timed reports whether the next attempt times its plugin calls.
func (s *Scheduler) timed() bool {
	if s.PluginSamples == nil {
		return metrics.DefaultPluginSampler.Next()
	}
	return s.PluginSamples.Next()
}

// New returns a Scheduler with every in-tree plugin and the general
// estimator.
func New() *Scheduler {
	return &Scheduler{Plugins: plugins.Default(), Estimator: estimator.Default()}
}

// Result is a successful scheduling decision.
type Result struct {
	// Clusters is the new spec.clusters.
	Clusters []workv1alpha2.TargetCluster
	// AffinityName is the clusterAffinities term that produced Clusters;
	// on failure it is the observed name, unchanged. Empty without
	// clusterAffinities.
	AffinityName string
}

// Schedule schedules a binding whose placement is set. On failure the
// Result still carries the affinity name to keep.
func (s *Scheduler) Schedule(spec *workv1alpha2.ResourceBindingSpec, status *workv1alpha2.ResourceBindingStatus, clusters []*clusterv1alpha1.Cluster) (Result, error) {
	if spec.Placement == nil {
		return Result{}, fmt.Errorf("binding has no placement")
	}
	if errs := validation.Placement(spec.Placement); len(errs) > 0 {
		return Result{AffinityName: status.SchedulerObservedAffinityName}, fmt.Errorf("invalid placement: %w", errs.ToAggregate())
	}
	var peers *framework.WorkloadPeers
	if s.WorkloadPeers != nil {
		peers = s.WorkloadPeers.Peers(spec)
	}
	if len(spec.Placement.ClusterAffinities) == 0 {
		tcs, err := s.attempt(spec, status, "", peers, clusters)
		return Result{Clusters: tcs}, err
	}
	return s.scheduleAffinities(spec, status, peers, clusters)
}

// scheduleAffinities tries the clusterAffinities terms in order, starting
// at the observed term (the first when the name is empty or unknown, or a
// manual reschedule is due), and returns the first success. When every
// term fails it returns the first error and keeps the observed name.
func (s *Scheduler) scheduleAffinities(spec *workv1alpha2.ResourceBindingSpec, status *workv1alpha2.ResourceBindingStatus, peers *framework.WorkloadPeers, clusters []*clusterv1alpha1.Cluster) (Result, error) {
	terms := spec.Placement.ClusterAffinities
	start := 0
	if !RescheduleDue(spec, status) {
		for i := range terms {
			if terms[i].AffinityName == status.SchedulerObservedAffinityName {
				start = i
				break
			}
		}
	}
	var firstErr error
	for i := start; i < len(terms); i++ {
		tcs, err := s.attempt(spec, status, terms[i].AffinityName, peers, clusters)
		if err == nil {
			return Result{Clusters: tcs, AffinityName: terms[i].AffinityName}, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return Result{AffinityName: status.SchedulerObservedAffinityName}, firstErr
}

// RescheduleDue reports whether a manual reschedule is pending:
// rescheduleTriggeredAt is later than lastScheduledTime (both set).
func RescheduleDue(spec *workv1alpha2.ResourceBindingSpec, status *workv1alpha2.ResourceBindingStatus) bool {
	return spec.RescheduleTriggeredAt != nil && status.LastScheduledTime != nil &&
		spec.RescheduleTriggeredAt.After(status.LastScheduledTime.Time)
}
