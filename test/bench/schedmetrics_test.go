package main

import (
	"strings"
	"testing"
)

func TestDecisionMillisMergesSeriesAndTakesBucketBounds(t *testing.T) {
	// Two series: 90 decisions within 2 ms and 10 between 8 and 16 ms.
	const exposition = `# HELP karmada_scheduler_e2e_scheduling_duration_seconds x
# TYPE karmada_scheduler_e2e_scheduling_duration_seconds histogram
karmada_scheduler_e2e_scheduling_duration_seconds_bucket{result="Success",schedule_type="FirstSchedule",le="0.001"} 40
karmada_scheduler_e2e_scheduling_duration_seconds_bucket{result="Success",schedule_type="FirstSchedule",le="0.002"} 80
karmada_scheduler_e2e_scheduling_duration_seconds_bucket{result="Success",schedule_type="FirstSchedule",le="0.004"} 80
karmada_scheduler_e2e_scheduling_duration_seconds_bucket{result="Success",schedule_type="FirstSchedule",le="0.008"} 80
karmada_scheduler_e2e_scheduling_duration_seconds_bucket{result="Success",schedule_type="FirstSchedule",le="0.016"} 89
karmada_scheduler_e2e_scheduling_duration_seconds_bucket{result="Success",schedule_type="FirstSchedule",le="+Inf"} 89
karmada_scheduler_e2e_scheduling_duration_seconds_sum{result="Success",schedule_type="FirstSchedule"} 0.2
karmada_scheduler_e2e_scheduling_duration_seconds_count{result="Success",schedule_type="FirstSchedule"} 89
karmada_scheduler_e2e_scheduling_duration_seconds_bucket{result="Success",schedule_type="ScaleSchedule",le="0.001"} 0
karmada_scheduler_e2e_scheduling_duration_seconds_bucket{result="Success",schedule_type="ScaleSchedule",le="0.002"} 10
karmada_scheduler_e2e_scheduling_duration_seconds_bucket{result="Success",schedule_type="ScaleSchedule",le="0.004"} 10
karmada_scheduler_e2e_scheduling_duration_seconds_bucket{result="Success",schedule_type="ScaleSchedule",le="0.008"} 10
karmada_scheduler_e2e_scheduling_duration_seconds_bucket{result="Success",schedule_type="ScaleSchedule",le="0.016"} 11
karmada_scheduler_e2e_scheduling_duration_seconds_bucket{result="Success",schedule_type="ScaleSchedule",le="+Inf"} 11
karmada_scheduler_e2e_scheduling_duration_seconds_sum{result="Success",schedule_type="ScaleSchedule"} 0.05
karmada_scheduler_e2e_scheduling_duration_seconds_count{result="Success",schedule_type="ScaleSchedule"} 11
# TYPE karmada_scheduler_scheduling_algorithm_duration_seconds histogram
karmada_scheduler_scheduling_algorithm_duration_seconds_bucket{schedule_step="Filter",le="0.001"} 98
karmada_scheduler_scheduling_algorithm_duration_seconds_bucket{schedule_step="Filter",le="0.002"} 100
karmada_scheduler_scheduling_algorithm_duration_seconds_bucket{schedule_step="Filter",le="+Inf"} 100
karmada_scheduler_scheduling_algorithm_duration_seconds_sum{schedule_step="Filter"} 0.03
karmada_scheduler_scheduling_algorithm_duration_seconds_count{schedule_step="Filter"} 100
karmada_scheduler_scheduling_algorithm_duration_seconds_bucket{schedule_step="AssignReplicas",le="0.001"} 50
karmada_scheduler_scheduling_algorithm_duration_seconds_bucket{schedule_step="AssignReplicas",le="0.002"} 50
karmada_scheduler_scheduling_algorithm_duration_seconds_bucket{schedule_step="AssignReplicas",le="+Inf"} 50
karmada_scheduler_scheduling_algorithm_duration_seconds_sum{schedule_step="AssignReplicas"} 0.02
karmada_scheduler_scheduling_algorithm_duration_seconds_count{schedule_step="AssignReplicas"} 50
`
	d, err := decisionMillisFrom(strings.NewReader(exposition))
	if err != nil {
		t.Fatal(err)
	}
	if d.Count != 100 || d.Mean != 2.5 || d.P50 != 2 || d.P99 != 16 {
		t.Fatalf("got %+v, want 100 decisions, mean 2.5 ms, p50 <= 2 ms, p99 <= 16 ms", d)
	}
	if d.AlgorithmMean != 0.5 || d.AlgorithmP99 != 2+1 {
		t.Fatalf("algorithm mean %v ms, p99 bound %v ms; want 0.5 ms over the 100 filter runs and 2+1 ms", d.AlgorithmMean, d.AlgorithmP99)
	}
	if d.ByKind["Success/FirstSchedule"] != 89 || d.ByKind["Success/ScaleSchedule"] != 11 {
		t.Fatalf("by kind %v, want 89 Success/FirstSchedule and 11 Success/ScaleSchedule", d.ByKind)
	}
}

func TestDecisionMillisBeyondTheLastBucket(t *testing.T) {
	const exposition = `# TYPE karmada_scheduler_e2e_scheduling_duration_seconds histogram
karmada_scheduler_e2e_scheduling_duration_seconds_bucket{result="Success",schedule_type="FirstSchedule",le="0.001"} 1
karmada_scheduler_e2e_scheduling_duration_seconds_bucket{result="Success",schedule_type="FirstSchedule",le="+Inf"} 2
karmada_scheduler_e2e_scheduling_duration_seconds_sum{result="Success",schedule_type="FirstSchedule"} 40
karmada_scheduler_e2e_scheduling_duration_seconds_count{result="Success",schedule_type="FirstSchedule"} 2
`
	d, err := decisionMillisFrom(strings.NewReader(exposition))
	if err != nil {
		t.Fatal(err)
	}
	if d.P50 != 1 || d.P99 != -1 {
		t.Fatalf("got %+v, want p50 1 ms and p99 -1 (beyond the buckets)", d)
	}
}

func TestDecisionMillisWithoutTheHistogram(t *testing.T) {
	if _, err := decisionMillisFrom(strings.NewReader("# TYPE other counter\nother 1\n")); err == nil {
		t.Fatal("want an error when the scheduler's histogram is missing")
	}
}
