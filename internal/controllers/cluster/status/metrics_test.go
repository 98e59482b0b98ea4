package status

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

func gauge(t *testing.T, g *prometheus.GaugeVec, cluster string) float64 {
	t.Helper()
	return testutil.ToFloat64(g.WithLabelValues(cluster))
}

func TestRecordSyncSetsClusterGauges(t *testing.T) {
	const name = "metrics-gauges"
	t.Cleanup(func() { forgetMetrics(name) })
	status := &clusterv1alpha1.ClusterStatus{
		Conditions:  []metav1.Condition{{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionTrue}},
		NodeSummary: &clusterv1alpha1.NodeSummary{TotalNum: 5, ReadyNum: 4},
		ResourceSummary: &clusterv1alpha1.ResourceSummary{
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3500m"), corev1.ResourceMemory: resource.MustParse("2Gi"), corev1.ResourcePods: resource.MustParse("110")},
			Allocated:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Mi"), corev1.ResourcePods: resource.MustParse("7")},
		},
	}
	recordSync(name, status, time.Now())
	for _, c := range []struct {
		metric string
		g      *prometheus.GaugeVec
		want   float64
	}{
		{"cluster_ready_state", clusterReady, 1}, {"cluster_node_number", clusterNodes, 5}, {"cluster_ready_node_number", clusterReadyNodes, 4},
		{"cluster_cpu_allocatable_number", clusterCPUAllocatable, 3.5}, {"cluster_memory_allocatable_bytes", clusterMemoryAllocatable, 2 << 30},
		{"cluster_pod_allocatable_number", clusterPodAllocatable, 110}, {"cluster_cpu_allocated_number", clusterCPUAllocated, 0.5},
		{"cluster_memory_allocated_bytes", clusterMemoryAllocated, 1 << 20}, {"cluster_pod_allocated_number", clusterPodAllocated, 7},
	} {
		if got := gauge(t, c.g, name); got != c.want {
			t.Errorf("%s = %v, want %v", c.metric, got, c.want)
		}
	}

	// A failed sync: not Ready, no summaries. Ready drops to 0, the
	// summary gauges keep their last value, the duration is observed.
	status = &clusterv1alpha1.ClusterStatus{Conditions: []metav1.Condition{{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionFalse}}}
	recordSync(name, status, time.Now())
	if got := gauge(t, clusterReady, name); got != 0 {
		t.Errorf("cluster_ready_state after a failed sync = %v, want 0", got)
	}
	if got := gauge(t, clusterNodes, name); got != 5 {
		t.Errorf("cluster_node_number without a nodeSummary = %v, want the last value 5", got)
	}
	var m dto.Metric
	if err := clusterSyncDuration.WithLabelValues(name).(prometheus.Metric).Write(&m); err != nil {
		t.Fatal(err)
	}
	if got := m.GetHistogram().GetSampleCount(); got != 2 {
		t.Errorf("cluster_sync_status_duration_seconds count = %d, want 2 (both syncs)", got)
	}
}

func TestForgetMetricsDeletesEverySeries(t *testing.T) {
	const name = "metrics-forget"
	recordSync(name, &clusterv1alpha1.ClusterStatus{
		NodeSummary:     &clusterv1alpha1.NodeSummary{TotalNum: 1},
		ResourceSummary: &clusterv1alpha1.ResourceSummary{Allocatable: corev1.ResourceList{}, Allocated: corev1.ResourceList{}},
	}, time.Now())
	forgetMetrics(name)
	for _, g := range clusterGauges {
		if g.Delete(prometheus.Labels{"member_cluster": name}) {
			t.Errorf("a gauge still had a series of %s after forgetMetrics", name)
		}
	}
	if clusterSyncDuration.Delete(prometheus.Labels{"member_cluster": name}) {
		t.Errorf("cluster_sync_status_duration_seconds still had a series of %s", name)
	}
}
