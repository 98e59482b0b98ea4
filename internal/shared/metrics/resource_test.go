package metrics

import (
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
)

func sampleCount(t *testing.T, o prometheus.Observer) uint64 {
	t.Helper()
	var m dto.Metric
	if err := o.(prometheus.Metric).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount()
}

// TestRecordersUseKarmadaLabelValues: result is success or error, recreate
// is "true"/"false", and each recorder feeds its own series.
func TestRecordersUseKarmadaLabelValues(t *testing.T) {
	boom := errors.New("boom")
	PolicyApplied(time.Now(), nil)
	PolicyApplied(time.Now(), boom)
	if got := testutil.ToFloat64(applyPolicyAttempts.WithLabelValues("success")); got < 1 {
		t.Errorf("policy_apply_attempts_total{result=success} = %v", got)
	}
	if got := sampleCount(t, applyPolicyDuration.WithLabelValues("error")); got < 1 {
		t.Errorf("resource_apply_policy_duration_seconds{result=error} count = %d", got)
	}
	before := testutil.ToFloat64(createResource.WithLabelValues("error", "apps/v1", "Deployment", "m1", "false"))
	ResourceCreated(boom, "apps/v1", "Deployment", "m1", false)
	if got := testutil.ToFloat64(createResource.WithLabelValues("error", "apps/v1", "Deployment", "m1", "false")) - before; got != 1 {
		t.Errorf("create_resource_to_cluster{result=error,recreate=false} grew by %v, want 1", got)
	}
	before = testutil.ToFloat64(updateResource.WithLabelValues("success", "v1", "ConfigMap", "m1", UpdateUnchanged))
	ResourceUpdated(nil, "v1", "ConfigMap", "m1", UpdateUnchanged)
	if got := testutil.ToFloat64(updateResource.WithLabelValues("success", "v1", "ConfigMap", "m1", UpdateUnchanged)) - before; got != 1 {
		t.Errorf("update_resource_to_cluster{operationResult=unchanged} grew by %v, want 1", got)
	}
	before = testutil.ToFloat64(deleteResource.WithLabelValues("success", "v1", "ConfigMap", "m1"))
	ResourceDeleted(nil, "v1", "ConfigMap", "m1")
	if got := testutil.ToFloat64(deleteResource.WithLabelValues("success", "v1", "ConfigMap", "m1")) - before; got != 1 {
		t.Errorf("delete_resource_from_cluster grew by %v, want 1", got)
	}
	before = testutil.ToFloat64(policyPreemptions.WithLabelValues("error"))
	PolicyPreempted(boom)
	if got := testutil.ToFloat64(policyPreemptions.WithLabelValues("error")) - before; got != 1 {
		t.Errorf("policy_preemption_total{result=error} grew by %v, want 1", got)
	}
}

// TestBucketsAreKarmadas: 12 buckets from 1ms doubling to 2.048s.
func TestBucketsAreKarmadas(t *testing.T) {
	if len(controllerBuckets) != 12 || controllerBuckets[0] != 0.001 || controllerBuckets[11] != 2.048 {
		t.Errorf("controller buckets = %v, want 0.001 … 2.048 (12)", controllerBuckets)
	}
}

// TestFederatedHPARecorders: 0.01 s … 20.48 s buckets and the camel-case
// metricType label.
func TestFederatedHPARecorders(t *testing.T) {
	if len(federatedHPABuckets) != 12 || federatedHPABuckets[0] != 0.01 || federatedHPABuckets[11] != 20.48 {
		t.Errorf("FederatedHPA buckets = %v, want 0.01 … 20.48 (12)", federatedHPABuckets)
	}
	before := sampleCount(t, federatedHPAPullDuration.WithLabelValues("error", MetricTypeObject))
	FederatedHPAMetricPulled(MetricTypeObject, time.Now(), errors.New("no custom metrics API"))
	if got := sampleCount(t, federatedHPAPullDuration.WithLabelValues("error", MetricTypeObject)) - before; got != 1 {
		t.Errorf("federatedhpa_pull_metrics_duration_seconds{result=error,metricType=ObjectMetric} grew by %d, want 1", got)
	}
}
