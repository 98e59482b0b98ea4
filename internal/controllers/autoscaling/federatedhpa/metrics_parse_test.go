package federatedhpa

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	custommetricsapi "k8s.io/metrics/pkg/apis/custom_metrics/v1beta2"
	metricsapi "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/propel-mc/propel/internal/controllers/autoscaling/federatedhpa/replicas"
)

const podMetricsSample = `{"metadata":{"name":"web-1","namespace":"ns"},"timestamp":"2026-11-24T12:00:00Z","window":"10.5s",
"containers":[{"name":"main","usage":{"cpu":"80123456n","memory":"16Mi"}},{"name":"side","usage":{"cpu":"20m","memory":"1Mi"}}]}`

// decodePodMetrics decodes a PodMetrics as the metrics client does.
func decodePodMetrics(t testing.TB, data string) *metricsapi.PodMetrics {
	pm := &metricsapi.PodMetrics{}
	if err := json.Unmarshal([]byte(data), pm); err != nil {
		t.Fatal(err)
	}
	return pm
}

// decodeMetricValues decodes a MetricValueList as the custom metrics
// client does.
func decodeMetricValues(t testing.TB, data string) []custommetricsapi.MetricValue {
	list := &custommetricsapi.MetricValueList{}
	if err := json.Unmarshal([]byte(data), list); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func TestPodSample(t *testing.T) {
	item := decodePodMetrics(t, podMetricsSample)
	s, ok, err := podSample(item, corev1.ResourceCPU, "", "member1", &sampleReport{})
	if err != nil || !ok || s.Value != 101 || s.Window != 10500*time.Millisecond || !s.Timestamp.Equal(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("pod sample %+v %v %v, want 101m over both containers", s, ok, err)
	}
	if s, ok, err := podSample(item, corev1.ResourceCPU, "side", "member1", &sampleReport{}); err != nil || !ok || s.Value != 20 {
		t.Fatalf("container sample %+v %v %v, want 20m", s, ok, err)
	}
	if _, _, err := podSample(item, corev1.ResourceCPU, "absent", "member1", &sampleReport{}); err == nil {
		t.Error("a named container missing from the metrics is not an error")
	}
	if _, ok, err := podSample(item, "nvidia.com/gpu", "", "member1", &sampleReport{}); ok || err != nil {
		t.Errorf("a pod without the resource gave a sample (%v, %v)", ok, err)
	}
	if s, ok, _ := podSample(decodePodMetrics(t, `{"metadata":{"name":"x"},"window":"-1h","containers":[{"name":"main","usage":{"cpu":"1"}}]}`),
		corev1.ResourceCPU, "", "member1", &sampleReport{}); !ok || s.Window != 0 {
		t.Errorf("a negative window is taken: %+v", s)
	}
}

func TestAddMetricValuesAddsUpClusters(t *testing.T) {
	samples := replicas.Samples{}
	for _, answer := range []string{
		`{"items":[{"describedObject":{"name":"a"},"timestamp":"2026-11-24T12:00:00Z","windowSeconds":30,"value":"150m"},{"describedObject":{"name":"b"},"value":"2"}]}`,
		`{"items":[{"describedObject":{"name":"a"},"value":"50m"}]}`,
	} {
		if err := addMetricValues(decodeMetricValues(t, answer), samples, "member1", &sampleReport{}); err != nil {
			t.Fatal(err)
		}
	}
	if samples["a"].Value != 200 || samples["b"].Value != 2000 || len(samples) != 2 {
		t.Fatalf("samples %+v, want a=200m (two clusters), b=2", samples)
	}
	// Out of range: a negative value is left out, a sum beyond int64
	// milli-units capped; both counted for the member.
	report := &sampleReport{}
	capped := replicas.Samples{}
	if err := addMetricValues(decodeMetricValues(t, `{"items":[{"describedObject":{"name":"a"},"value":"9e18"},{"describedObject":{"name":"a"},"value":"9e18"},`+
		`{"describedObject":{"name":"b"},"value":"-3"},{"describedObject":{"name":"c"},"value":"1"},{"describedObject":{"name":"c"},"value":"-1"}]}`), capped, "member1", report); err != nil {
		t.Fatal(err)
	}
	if len(capped) != 2 || capped["a"].Value != math.MaxInt64 || capped["c"].Value != 1000 {
		t.Errorf("samples %+v, want a capped, c = 1 and no b", capped)
	}
	if report.negative["member1"] != 2 || report.saturated["member1"] != 2 {
		t.Errorf("report %+v, want 2 negative and 2 capped values of member1", report)
	}
	if err := addMetricValues(make([]custommetricsapi.MetricValue, maxMetricValues+1), replicas.Samples{}, "member1", &sampleReport{}); err == nil {
		t.Error("an answer beyond the value bound is taken")
	}
}

// FuzzAddMetricValues: a member's custom metrics answer, as the client
// decodes it, never crashes the controller and never yields a negative
// window or value.
func FuzzAddMetricValues(f *testing.F) {
	f.Add([]byte(`{"items":[{"describedObject":{"name":"a"},"timestamp":"2026-11-24T12:00:00Z","windowSeconds":30,"value":"150m"}]}`))
	f.Add([]byte(`{"items":[{"describedObject":{"name":"a"},"windowSeconds":-5,"value":"1e18"}]}`))
	f.Add([]byte(`{"items":null}`))
	f.Add([]byte(`{"items":[{"describedObject":{"name":"a"},"value":"9e18"},{"describedObject":{"name":"a"},"value":"9e18"},{"describedObject":{"name":"a"},"value":"-1"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		list := &custommetricsapi.MetricValueList{}
		if json.Unmarshal(data, list) != nil {
			return
		}
		samples := replicas.Samples{}
		if err := addMetricValues(list.Items, samples, "member1", &sampleReport{}); err != nil {
			return
		}
		for name, s := range samples {
			if s.Window < 0 {
				t.Fatalf("negative window for %q: %v", name, s.Window)
			}
			if s.Value < 0 {
				t.Fatalf("negative value for %q: %d", name, s.Value)
			}
		}
	})
}

// FuzzPodSample: a member's PodMetrics, as the client decodes them, never
// crash the controller nor give a negative sample.
func FuzzPodSample(f *testing.F) {
	f.Add([]byte(podMetricsSample), "")
	f.Add([]byte(`{"containers":[{"name":"main","usage":{"cpu":"-5"}}],"window":"-1h"}`), "main")
	f.Fuzz(func(t *testing.T, data []byte, container string) {
		pm := &metricsapi.PodMetrics{}
		if json.Unmarshal(data, pm) != nil {
			return
		}
		s, ok, _ := podSample(pm, corev1.ResourceCPU, container, "member1", &sampleReport{})
		if ok && (s.Value < 0 || s.Window < 0) {
			t.Fatalf("negative sample %+v", s)
		}
	})
}
