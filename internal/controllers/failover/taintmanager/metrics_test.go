package taintmanager

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
)

// TestEvictionQueueMetrics follows Karmada's bookkeeping: an add counts
// the key for its cluster and kind and sets the depth; a failed item is
// retried without a second count; a processed item is timed and counted
// by result, and only a success uncounts it.
func TestEvictionQueueMetrics(t *testing.T) {
	const name = "metrics-test-eviction"
	fail := true
	q := newEvictionQueue(name, Options{Workers: 1, EvictionRate: 1000}, func(context.Context, evictionKey) (time.Duration, error) {
		if fail {
			return 0, errors.New("conflict")
		}
		return 0, nil
	})
	defer q.queue.ShutDown()
	rb := evictionKey{Cluster: "metrics-m1", Namespace: "ns", Name: "rb"}
	kind := func() float64 {
		return testutil.ToFloat64(evictionKindTotal.WithLabelValues("metrics-m1", "ResourceBinding"))
	}
	processed := func(result string) float64 {
		return testutil.ToFloat64(evictionProcessed.WithLabelValues(name, result))
	}

	q.add(rb, 0)
	if got := kind(); got != 1 {
		t.Fatalf("eviction_kind_total after an add = %v, want 1", got)
	}
	if got := testutil.ToFloat64(evictionQueueDepth.WithLabelValues(name)); got != 1 {
		t.Errorf("eviction_queue_depth after an add = %v, want 1", got)
	}
	q.next(context.Background()) // fails, re-queued rate limited
	if got := kind(); got != 1 {
		t.Errorf("eviction_kind_total after a failure = %v, want still 1", got)
	}
	if got := processed("error"); got != 1 {
		t.Errorf("eviction_processing_total{result=error} = %v, want 1", got)
	}
	fail = false
	q.next(context.Background())
	if got := kind(); got != 0 {
		t.Errorf("eviction_kind_total after a success = %v, want 0", got)
	}
	if got := processed("success"); got != 1 {
		t.Errorf("eviction_processing_total{result=success} = %v, want 1", got)
	}
	var m dto.Metric
	if err := evictionLatency.WithLabelValues(name).(prometheus.Metric).Write(&m); err != nil {
		t.Fatal(err)
	}
	if got := m.GetHistogram().GetSampleCount(); got != 2 {
		t.Errorf("eviction_processing_latency_seconds count = %d, want 2", got)
	}
	crb := evictionKey{Cluster: "metrics-m1", Name: "crb"}
	q.add(crb, time.Hour)
	if got := testutil.ToFloat64(evictionKindTotal.WithLabelValues("metrics-m1", "ClusterResourceBinding")); got != 1 {
		t.Errorf("eviction_kind_total{resource_kind=ClusterResourceBinding} after AddAfter = %v, want 1", got)
	}
}
