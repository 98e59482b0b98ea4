package core

import (
	"testing"
	"time"

	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/metrics"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/plugins"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// TestScheduleRecordsKarmadaAlgorithmMetrics: a run records each of
// Karmada's four algorithm steps once, the Filter extension point once
// per cluster (Unschedulable for the one that fails), the Score extension
// point once, and every plugin call per cluster.
func TestScheduleRecordsKarmadaAlgorithmMetrics(t *testing.T) {
	clusters := []*clusterv1alpha1.Cluster{st.Cluster("m1"), st.Cluster("m2"), st.Cluster("m3", st.NoAPIs())}
	spec := st.Spec(4, st.Static([]string{"m1", "m2"}, 1, 1))
	spec.Placement.ClusterAffinity = &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"m1", "m2", "m3"}}
	const (
		steps    = "karmada_scheduler_scheduling_algorithm_duration_seconds"
		points   = "karmada_scheduler_framework_extension_point_duration_seconds"
		pluginsM = "karmada_scheduler_plugin_execution_duration_seconds"
	)
	count := func(metric string, labels map[string]string) float64 { return st.MetricCount(t, metric, labels) }
	type probe struct {
		metric string
		labels map[string]string
		want   float64
	}
	firstFilter, firstScore := plugins.Default().Filters[0].Name(), plugins.Default().Scores[0].Name()
	probes := []probe{
		{steps, map[string]string{"schedule_step": "Filter"}, 1},
		{steps, map[string]string{"schedule_step": "Score"}, 1},
		{steps, map[string]string{"schedule_step": "Select"}, 1},
		{steps, map[string]string{"schedule_step": "AssignReplicas"}, 1},
		{points, map[string]string{"extension_point": "Filter", "result": "Success"}, 2},
		{points, map[string]string{"extension_point": "Filter", "result": "Unschedulable"}, 1},
		{points, map[string]string{"extension_point": "Score", "result": "Success"}, 1},
		// m3 fails the first filter (APIEnablement): its later filters
		// do not run; m1 and m2 pass it.
		{pluginsM, map[string]string{"plugin": firstFilter, "extension_point": "Filter", "result": "Success"}, 2},
		{pluginsM, map[string]string{"plugin": firstFilter, "extension_point": "Filter", "result": "Unschedulable"}, 1},
		{pluginsM, map[string]string{"plugin": firstScore, "extension_point": "Score", "result": "Success"}, 2},
	}
	before := make([]float64, len(probes))
	for i, p := range probes {
		before[i] = count(p.metric, p.labels)
	}
	// A sampler of its own: its first attempt is timed.
	s := New()
	s.PluginSamples = metrics.NewPluginSampler(metrics.PluginSampleEvery, metrics.PluginSampleInterval, time.Now)
	if _, err := s.Schedule(spec, noStatus, clusters); err != nil {
		t.Fatal(err)
	}
	for i, p := range probes {
		if got := count(p.metric, p.labels) - before[i]; got != p.want {
			t.Errorf("%s%v grew by %v, want %v", p.metric, p.labels, got, p.want)
		}
	}
}

// TestPluginCallsTimedOnSampledAttempts: the algorithm steps are
// recorded on every attempt, the per-cluster plugin calls and Filter
// extension points only on the attempts the sampler picks.
func TestPluginCallsTimedOnSampledAttempts(t *testing.T) {
	clusters := []*clusterv1alpha1.Cluster{st.Cluster("m1"), st.Cluster("m2")}
	spec := st.Spec(4, st.Static([]string{"m1", "m2"}, 1, 1))
	firstFilter := plugins.Default().Filters[0].Name()
	steps := map[string]string{"schedule_step": "Filter"}
	calls := map[string]string{"plugin": firstFilter, "extension_point": "Filter", "result": "Success"}
	points := map[string]string{"extension_point": "Filter", "result": "Success"}
	const (
		stepsM   = "karmada_scheduler_scheduling_algorithm_duration_seconds"
		pointsM  = "karmada_scheduler_framework_extension_point_duration_seconds"
		pluginsM = "karmada_scheduler_plugin_execution_duration_seconds"
	)
	stepsBefore, callsBefore, pointsBefore := st.MetricCount(t, stepsM, steps), st.MetricCount(t, pluginsM, calls), st.MetricCount(t, pointsM, points)
	s := New()
	// A clock that never moves: only the count picks attempts.
	s.PluginSamples = metrics.NewPluginSampler(10, time.Second, func() time.Time { return time.Unix(0, 0) })
	attempts := 21
	for range attempts {
		if _, err := s.Schedule(spec, noStatus, clusters); err != nil {
			t.Fatal(err)
		}
	}
	if got := st.MetricCount(t, stepsM, steps) - stepsBefore; got != float64(attempts) {
		t.Errorf("Filter step recorded %v times, want %d", got, attempts)
	}
	// Attempts 1, 11 and 21 are timed, each over both clusters.
	if got := st.MetricCount(t, pluginsM, calls) - callsBefore; got != 6 {
		t.Errorf("%s calls recorded %v times, want 6", firstFilter, got)
	}
	if got := st.MetricCount(t, pointsM, points) - pointsBefore; got != 6 {
		t.Errorf("Filter extension point recorded %v times, want 6", got)
	}
}
