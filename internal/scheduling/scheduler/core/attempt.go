package core

import (
	"errors"
	"slices"
	"time"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/assign"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/metrics"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/spread"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// errNoClusterSelected is Karmada's error when selection keeps no cluster
// (e.g. a cluster spread constraint with maxGroups 0).
var errNoClusterSelected = errors.New("no clusters available to schedule")

// attempt is one pass of the pipeline with the given affinity term and
// workload peers.
func (s *Scheduler) attempt(spec *workv1alpha2.ResourceBindingSpec, status *workv1alpha2.ResourceBindingStatus, affinityName string, peers *framework.WorkloadPeers, clusters []*clusterv1alpha1.Cluster) ([]workv1alpha2.TargetCluster, error) {
	b := framework.NewBindingInfo(spec, affinityName)
	b.Peers = peers
	timed := s.timed()
	fit, err := s.filter(b, clusters, timed)
	if err != nil {
		return nil, err
	}
	details := s.details(b, fit, timed)
	start := time.Now()
	selected, err := spread.Select(spec, details)
	metrics.ScheduleStep(metrics.StepSelect, start)
	if err != nil {
		return nil, err
	}
	if len(selected) == 0 {
		return nil, errNoClusterSelected
	}
	start = time.Now()
	tcs, err := s.assign(b, status, selected)
	metrics.ScheduleStep(metrics.StepAssignReplicas, start)
	if err != nil {
		return nil, err
	}
	if s.EnableEmptyWorkloadPropagation {
		tcs = withEmptyClusters(tcs, selected)
	}
	return tcs, nil
}

// filter runs the filter plugins on every cluster that is not being
// deleted; a cluster's reason is the first failing plugin's. No fitting
// cluster is a FitError over the whole snapshot. A timed attempt records
// every plugin call and each cluster's Filter extension point.
func (s *Scheduler) filter(b *framework.BindingInfo, clusters []*clusterv1alpha1.Cluster, timed bool) ([]*clusterv1alpha1.Cluster, error) {
	defer metrics.ScheduleStep(metrics.StepFilter, time.Now())
	var observers []metrics.PluginObserver
	if timed {
		observers = make([]metrics.PluginObserver, len(s.Plugins.Filters))
		for i, f := range s.Plugins.Filters {
			observers[i] = metrics.ObserverFor(f.Name(), metrics.ExtensionFilter)
		}
	}
	fit := make([]*clusterv1alpha1.Cluster, 0, len(clusters))
	var reasons map[string]int
	for _, c := range clusters {
		if c.DeletionTimestamp != nil {
			continue
		}
		if reason := s.firstFailure(b, c, observers); reason != "" {
			if reasons == nil {
				reasons = map[string]int{}
			}
			reasons[reason]++
			continue
		}
		fit = append(fit, c)
	}
	if len(fit) == 0 {
		return nil, &framework.FitError{NumAllClusters: len(clusters), Reasons: reasons}
	}
	return fit, nil
}

// firstFailure runs the filters on one cluster (Karmada's Filter
// extension point), recording each call in observers (one per filter)
// unless there are none: an attempt that is not timed.
func (s *Scheduler) firstFailure(b *framework.BindingInfo, c *clusterv1alpha1.Cluster, observers []metrics.PluginObserver) string {
	if observers == nil {
		for _, f := range s.Plugins.Filters {
			if reason := f.Filter(b, c); reason != "" {
				return reason
			}
		}
		return ""
	}
	pointStart := time.Now()
	last := pointStart
	for i, f := range s.Plugins.Filters {
		reason := f.Filter(b, c)
		now := time.Now()
		observers[i].Observe(now.Sub(last), reason == "")
		last = now
		if reason != "" {
			metrics.ExtensionPoint(metrics.ExtensionFilter, metrics.ResultUnschedulable, last.Sub(pointStart))
			return reason
		}
	}
	metrics.ExtensionPoint(metrics.ExtensionFilter, metrics.ResultSuccess, last.Sub(pointStart))
	return ""
}

// details scores, estimates and orders the fitting clusters: the Score
// step, which here includes the replica estimate Karmada makes while
// assigning replicas (Propel orders clusters by it). A timed attempt
// records every plugin call.
func (s *Scheduler) details(b *framework.BindingInfo, fit []*clusterv1alpha1.Cluster, timed bool) []framework.ClusterDetail {
	defer metrics.ScheduleStep(metrics.StepScore, time.Now())
	estimates := s.Estimator.Estimate(fit, b.Spec)
	details := make([]framework.ClusterDetail, len(fit))
	observers := make([]metrics.PluginObserver, len(s.Plugins.Scores))
	for i, p := range s.Plugins.Scores {
		observers[i] = metrics.ObserverFor(p.Name(), metrics.ExtensionScore)
	}
	pointStart := time.Now()
	last := pointStart
	for i, c := range fit {
		d := &details[i]
		d.Cluster = c
		for j, p := range s.Plugins.Scores {
			if !timed {
				d.Score += p.Score(b, c)
				continue
			}
			d.Score += p.Score(b, c)
			now := time.Now()
			observers[j].Observe(now.Sub(last), true)
			last = now
		}
		if b.Affinity != nil && b.Affinity.FromAffinities {
			d.OverflowOrder = b.Affinity.OverflowOrder(c)
		}
		d.AllocatableReplicas = estimates[i]
		d.AvailableReplicas = estimates[i] + int64(b.Targets[c.Name])
	}
	metrics.ExtensionPoint(metrics.ExtensionScore, metrics.ResultSuccess, time.Since(pointStart))
	slices.SortFunc(details, framework.Compare)
	return details
}

// assign divides the replicas, in overflow tiers when the observed term
// has overflow affinities and replicas are divided.
func (s *Scheduler) assign(b *framework.BindingInfo, status *workv1alpha2.ResourceBindingStatus, selected []framework.ClusterDetail) ([]workv1alpha2.TargetCluster, error) {
	req := assign.Request{
		Spec:     b.Spec,
		Replicas: b.Spec.Replicas,
		Clusters: selected,
		Previous: b.Spec.Clusters,
		Fresh:    RescheduleDue(b.Spec, status),
	}
	if b.Affinity.HasOverflow() && assign.UsesStrategy(b.Spec) {
		if strategy, err := assign.StrategyOf(b.Spec.Placement); err == nil && strategy != assign.Duplicated {
			return assign.AssignTiers(req)
		}
	}
	return assign.Assign(req)
}

// withEmptyClusters lists every selected cluster missing from tcs with 0
// replicas.
func withEmptyClusters(tcs []workv1alpha2.TargetCluster, selected []framework.ClusterDetail) []workv1alpha2.TargetCluster {
	for i := range selected {
		name := selected[i].Name()
		if !slices.ContainsFunc(tcs, func(tc workv1alpha2.TargetCluster) bool { return tc.Name == name }) {
			tcs = append(tcs, workv1alpha2.TargetCluster{Name: name})
		}
	}
	return tcs
}
