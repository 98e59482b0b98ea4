package metricreg

import (
	"errors"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

func gathered(t *testing.T, name string) *dto.MetricFamily {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f
		}
	}
	return nil
}

func TestDeclaredMetricsAreServed(t *testing.T) {
	c := CounterVec("metricreg_test_total", "help", "result")
	c.WithLabelValues(Result(errors.New("x"))).Inc()
	f := gathered(t, "metricreg_test_total")
	if f == nil || f.GetType() != dto.MetricType_COUNTER || f.GetHelp() != "help" {
		t.Fatalf("counter served as %v", f)
	}
	if l := f.Metric[0].Label; len(l) != 1 || l[0].GetName() != "result" || l[0].GetValue() != "error" {
		t.Errorf("counter labels %v, want result=error", l)
	}

	g := GaugeVec("metricreg_test_gauge", "help", "memo")
	g.WithLabelValues(Result(nil)).Set(2)
	if f := gathered(t, "metricreg_test_gauge"); f == nil || f.GetType() != dto.MetricType_GAUGE || f.Metric[0].Label[0].GetValue() != "success" {
		t.Errorf("gauge served as %v", f)
	}

	h := HistogramVec("metricreg_test_vec_seconds", "help", []float64{1, 2}, "a", "b")
	h.WithLabelValues("x", "y").Observe(1.5)
	f = gathered(t, "metricreg_test_vec_seconds")
	if f == nil || f.GetType() != dto.MetricType_HISTOGRAM || len(f.Metric[0].Histogram.Bucket) != 2 || len(f.Metric[0].Label) != 2 {
		t.Errorf("histogram vector served as %v", f)
	}

	Histogram("metricreg_test_seconds", "help", []float64{1})
	if f := gathered(t, "metricreg_test_seconds"); f == nil || len(f.Metric) != 1 {
		t.Errorf("a histogram without labels serves no series before its first observation: %v", f)
	}
}

func TestDeclaringANameTwicePanics(t *testing.T) {
	CounterVec("metricreg_test_twice_total", "help")
	defer func() {
		if recover() == nil {
			t.Error("a second declaration of the same name was accepted")
		}
	}()
	CounterVec("metricreg_test_twice_total", "help")
}
