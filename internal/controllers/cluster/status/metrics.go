package status

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// Karmada's cluster status metrics (karmada-controller-manager, no
// prefix, label member_cluster = Cluster name): the gauges describe the
// status a sync computed, the histogram times the sync.
var (
	clusterReady             = clusterGauge("cluster_ready_state", "1 when the cluster's Ready condition is True, else 0.")
	clusterNodes             = clusterGauge("cluster_node_number", "Nodes of the cluster (status.nodeSummary.totalNum).")
	clusterReadyNodes        = clusterGauge("cluster_ready_node_number", "Ready nodes of the cluster (status.nodeSummary.readyNum).")
	clusterMemoryAllocatable = clusterGauge("cluster_memory_allocatable_bytes", "Allocatable memory of the cluster in bytes.")
	clusterCPUAllocatable    = clusterGauge("cluster_cpu_allocatable_number", "Allocatable CPU of the cluster in cores.")
	clusterPodAllocatable    = clusterGauge("cluster_pod_allocatable_number", "Allocatable pods of the cluster.")
	clusterMemoryAllocated   = clusterGauge("cluster_memory_allocated_bytes", "Memory requested by the cluster's pods in bytes.")
	clusterCPUAllocated      = clusterGauge("cluster_cpu_allocated_number", "CPU requested by the cluster's pods in cores.")
	clusterPodAllocated      = clusterGauge("cluster_pod_allocated_number", "Pods placed on the cluster.")

	clusterSyncDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "cluster_sync_status_duration_seconds",
		Help:    "Seconds one status sync of a cluster took, failed syncs included.",
		Buckets: prometheus.DefBuckets,
	}, []string{"member_cluster"})

	clusterGauges = []*prometheus.GaugeVec{clusterReady, clusterNodes, clusterReadyNodes,
		clusterMemoryAllocatable, clusterCPUAllocatable, clusterPodAllocatable,
		clusterMemoryAllocated, clusterCPUAllocated, clusterPodAllocated}
)

func clusterGauge(name, help string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, []string{"member_cluster"})
}

func init() {
	for _, g := range clusterGauges {
		metrics.Registry.MustRegister(g)
	}
	metrics.Registry.MustRegister(clusterSyncDuration)
}

// recordSync sets the cluster's gauges from the status a sync computed and
// observes the sync's duration. As in Karmada, the node gauges are written
// only with a nodeSummary and the resource gauges only with the
// corresponding part of the resourceSummary: otherwise they keep their
// last value.
func recordSync(cluster string, status *clusterv1alpha1.ClusterStatus, start time.Time) {
	ready := 0.0
	if meta.IsStatusConditionTrue(status.Conditions, clusterv1alpha1.ClusterConditionReady) {
		ready = 1
	}
	clusterReady.WithLabelValues(cluster).Set(ready)
	if s := status.NodeSummary; s != nil {
		clusterNodes.WithLabelValues(cluster).Set(float64(s.TotalNum))
		clusterReadyNodes.WithLabelValues(cluster).Set(float64(s.ReadyNum))
	}
	if s := status.ResourceSummary; s != nil {
		if s.Allocatable != nil {
			setResources(cluster, s.Allocatable, clusterMemoryAllocatable, clusterCPUAllocatable, clusterPodAllocatable)
		}
		if s.Allocated != nil {
			setResources(cluster, s.Allocated, clusterMemoryAllocated, clusterCPUAllocated, clusterPodAllocated)
		}
	}
	clusterSyncDuration.WithLabelValues(cluster).Observe(time.Since(start).Seconds())
}

func setResources(cluster string, list corev1.ResourceList, memory, cpu, pods *prometheus.GaugeVec) {
	memory.WithLabelValues(cluster).Set(list.Memory().AsApproximateFloat64())
	cpu.WithLabelValues(cluster).Set(list.Cpu().AsApproximateFloat64())
	pods.WithLabelValues(cluster).Set(list.Pods().AsApproximateFloat64())
}

// forgetMetrics deletes every series of a cluster that is gone or no
// longer synced by this controller.
func forgetMetrics(cluster string) {
	labels := prometheus.Labels{"member_cluster": cluster}
	for _, g := range clusterGauges {
		g.Delete(labels)
	}
	clusterSyncDuration.Delete(labels)
}
