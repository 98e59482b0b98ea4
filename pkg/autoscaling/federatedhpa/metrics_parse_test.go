package federatedhpa

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/pkg/autoscaling/federatedhpa/replicas"
)

const podMetricsSample = `{"metadata":{"name":"web-1","namespace":"ns"},"timestamp":"2026-11-24T12:00:00Z","window":"10.5s",
"containers":[{"name":"main","usage":{"cpu":"80123456n","memory":"16Mi"}},{"name":"side","usage":{"cpu":"20m","memory":"1Mi"}}]}`

func decode(t testing.TB, data string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(data), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestPodSample(t *testing.T) {
	item := decode(t, podMetricsSample)
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
	bad := decode(t, `{"metadata":{"name":"x"},"containers":[{"name":"main","usage":{"cpu":"lots"}}]}`)
	if _, _, err := podSample(bad, corev1.ResourceCPU, "", "member1", &sampleReport{}); err == nil {
		t.Error("an unparsable quantity is not an error")
	}
}

func TestParseMetricValuesAddsUpClusters(t *testing.T) {
	samples := replicas.Samples{}
	for _, answer := range []string{
		`{"items":[{"describedObject":{"name":"a"},"timestamp":"2026-11-24T12:00:00Z","windowSeconds":30,"value":"150m"},{"describedObject":{"name":"b"},"value":"2"}]}`,
		`{"items":[{"describedObject":{"name":"a"},"value":"50m"}]}`,
	} {
		if err := parseMetricValues([]byte(answer), samples, "member1", &sampleReport{}); err != nil {
			t.Fatal(err)
		}
	}
	if samples["a"].Value != 200 || samples["b"].Value != 2000 || len(samples) != 2 {
		t.Fatalf("samples %+v, want a=200m (two clusters), b=2", samples)
	}
	if err := parseMetricValues([]byte(`{"items":[{"value":"x"}]}`), samples, "member1", &sampleReport{}); err == nil {
		t.Error("an unparsable value is not an error")
	}
	// Out of range: a negative value is left out, a sum beyond int64
	// milli-units capped; both counted for the member.
	report := &sampleReport{}
	capped := replicas.Samples{}
	if err := parseMetricValues([]byte(`{"items":[{"describedObject":{"name":"a"},"value":"9e18"},{"describedObject":{"name":"a"},"value":"9e18"},`+
		`{"describedObject":{"name":"b"},"value":"-3"},{"describedObject":{"name":"c"},"value":"1"},{"describedObject":{"name":"c"},"value":"-1"}]}`), capped, "member1", report); err != nil {
		t.Fatal(err)
	}
	if len(capped) != 2 || capped["a"].Value != math.MaxInt64 || capped["c"].Value != 1000 {
		t.Errorf("samples %+v, want a capped, c = 1 and no b", capped)
	}
	if report.negative["member1"] != 2 || report.saturated["member1"] != 2 {
		t.Errorf("report %+v, want 2 negative and 2 capped values of member1", report)
	}
}

// FuzzParseMetricValues: a member's custom metrics answer never crashes
// the controller and never yields a negative window.
func FuzzParseMetricValues(f *testing.F) {
	f.Add([]byte(`{"items":[{"describedObject":{"name":"a"},"timestamp":"2026-11-24T12:00:00Z","windowSeconds":30,"value":"150m"}]}`))
	f.Add([]byte(`{"items":[{"describedObject":{"name":"a"},"windowSeconds":-5,"value":"1e18"}]}`))
	f.Add([]byte(`{"items":null}`))
	f.Add([]byte(`{"items":[{"describedObject":{"name":"a"},"value":"9e18"},{"describedObject":{"name":"a"},"value":"9e18"},{"describedObject":{"name":"a"},"value":"-1"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples := replicas.Samples{}
		if err := parseMetricValues(data, samples, "member1", &sampleReport{}); err != nil {
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

// FuzzPodSample: a member's PodMetrics never crash the controller.
func FuzzPodSample(f *testing.F) {
	f.Add([]byte(podMetricsSample), "")
	f.Add([]byte(`{"containers":[{"name":1,"usage":{"cpu":5}}],"window":"-1h"}`), "main")
	f.Fuzz(func(t *testing.T, data []byte, container string) {
		u := &unstructured.Unstructured{}
		if json.Unmarshal(data, &u.Object) != nil {
			return
		}
		_, _, _ = podSample(u, corev1.ResourceCPU, container, "member1", &sampleReport{})
	})
}
