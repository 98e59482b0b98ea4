package federatedhpa

import (
	"encoding/json"
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
	s, ok, err := podSample(item, corev1.ResourceCPU, "")
	if err != nil || !ok || s.Value != 101 || s.Window != 10500*time.Millisecond || !s.Timestamp.Equal(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("pod sample %+v %v %v, want 101m over both containers", s, ok, err)
	}
	if s, ok, err := podSample(item, corev1.ResourceCPU, "side"); err != nil || !ok || s.Value != 20 {
		t.Fatalf("container sample %+v %v %v, want 20m", s, ok, err)
	}
	if _, _, err := podSample(item, corev1.ResourceCPU, "absent"); err == nil {
		t.Error("a named container missing from the metrics is not an error")
	}
	if _, ok, err := podSample(item, "nvidia.com/gpu", ""); ok || err != nil {
		t.Errorf("a pod without the resource gave a sample (%v, %v)", ok, err)
	}
	bad := decode(t, `{"metadata":{"name":"x"},"containers":[{"name":"main","usage":{"cpu":"lots"}}]}`)
	if _, _, err := podSample(bad, corev1.ResourceCPU, ""); err == nil {
		t.Error("an unparsable quantity is not an error")
	}
}

func TestParseMetricValuesAddsUpClusters(t *testing.T) {
	samples := replicas.Samples{}
	for _, answer := range []string{
		`{"items":[{"describedObject":{"name":"a"},"timestamp":"2026-11-24T12:00:00Z","windowSeconds":30,"value":"150m"},{"describedObject":{"name":"b"},"value":"2"}]}`,
		`{"items":[{"describedObject":{"name":"a"},"value":"50m"}]}`,
	} {
		if err := parseMetricValues([]byte(answer), samples); err != nil {
			t.Fatal(err)
		}
	}
	if samples["a"].Value != 200 || samples["b"].Value != 2000 || len(samples) != 2 {
		t.Fatalf("samples %+v, want a=200m (two clusters), b=2", samples)
	}
	if err := parseMetricValues([]byte(`{"items":[{"value":"x"}]}`), samples); err == nil {
		t.Error("an unparsable value is not an error")
	}
}

// FuzzParseMetricValues: a member's custom metrics answer never crashes
// the controller and never yields a negative window.
func FuzzParseMetricValues(f *testing.F) {
	f.Add([]byte(`{"items":[{"describedObject":{"name":"a"},"timestamp":"2026-11-24T12:00:00Z","windowSeconds":30,"value":"150m"}]}`))
	f.Add([]byte(`{"items":[{"describedObject":{"name":"a"},"windowSeconds":-5,"value":"1e18"}]}`))
	f.Add([]byte(`{"items":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples := replicas.Samples{}
		if err := parseMetricValues(data, samples); err != nil {
			return
		}
		for name, s := range samples {
			if s.Window < 0 {
				t.Fatalf("negative window for %q: %v", name, s.Window)
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
		_, _, _ = podSample(u, corev1.ResourceCPU, container)
	})
}
