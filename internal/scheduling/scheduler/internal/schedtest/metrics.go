package schedtest

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// MetricCount is the count of the series of metric with exactly labels in
// controller-runtime's registry: a counter's value or a histogram's
// sample count; 0 when the series does not exist.
func MetricCount(t testing.TB, metric string, labels map[string]string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatalf("gather metrics: %v", err)
	}
	for _, f := range families {
		if f.GetName() != metric {
			continue
		}
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			match := true
			for _, l := range m.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					match = false
				}
			}
			if !match {
				continue
			}
			if h := m.GetHistogram(); h != nil {
				return float64(h.GetSampleCount())
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}
