package core

import (
	"testing"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	st "github.com/propel-mc/propel/pkg/scheduler/internal/schedtest"
	"github.com/propel-mc/propel/pkg/scheduler/plugins"
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
	if _, err := schedule(t, spec, noStatus, clusters...); err != nil {
		t.Fatal(err)
	}
	for i, p := range probes {
		if got := count(p.metric, p.labels) - before[i]; got != p.want {
			t.Errorf("%s%v grew by %v, want %v", p.metric, p.labels, got, p.want)
		}
	}
}
