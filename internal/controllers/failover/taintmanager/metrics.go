package taintmanager

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	pmetrics "github.com/propel-mc/propel/internal/shared/metrics"
)

// Karmada's eviction queue metrics (label name = the queue's name,
// binding-eviction or cluster-binding-eviction).
var (
	evictionQueueDepth = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "eviction_queue_depth",
		Help: "Items in an eviction queue, set after every add and take.",
	}, []string{"name"})
	// evictionKindTotal is a gauge despite its name, as in Karmada: the
	// queued evictions per cluster and binding kind.
	evictionKindTotal = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "eviction_kind_total",
		Help: "Evictions queued and not yet done, per member cluster and binding kind.",
	}, []string{"member_cluster", "resource_kind"})
	evictionLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "eviction_processing_latency_seconds",
		Help:    "Seconds one eviction took.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 15),
	}, []string{"name"})
	evictionProcessed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "eviction_processing_total",
		Help: "Evictions processed, by queue and result.",
	}, []string{"name", "result"})
)

func init() {
	metrics.Registry.MustRegister(evictionQueueDepth, evictionKindTotal, evictionLatency, evictionProcessed)
}

// resourceKind is Karmada's resource_kind of a key: a namespace means a
// ResourceBinding.
func (k evictionKey) resourceKind() string {
	if k.Namespace != "" {
		return "ResourceBinding"
	}
	return "ClusterResourceBinding"
}

// queued moves the cluster's count of queued evictions of key's kind by
// delta (skipped without a cluster, as Karmada does).
func queued(key evictionKey, delta float64) {
	if key.Cluster == "" {
		return
	}
	evictionKindTotal.WithLabelValues(key.Cluster, key.resourceKind()).Add(delta)
}

// observeEviction records one processed item of queue name begun at start.
func observeEviction(name string, start time.Time, err error) {
	evictionLatency.WithLabelValues(name).Observe(time.Since(start).Seconds())
	evictionProcessed.WithLabelValues(name, pmetrics.Result(err)).Inc()
}
