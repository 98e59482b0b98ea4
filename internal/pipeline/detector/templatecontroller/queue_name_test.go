package templatecontroller

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// TestQueueCarriesKarmadasName: the work queue shows in workqueue_* as
// Karmada's "resource detector", which Karmada's dashboards select.
func TestQueueCarriesKarmadasName(t *testing.T) {
	r := New(Deps{}, Options{})
	defer r.queue.ShutDown()
	r.queue.Add(Key{Name: "x"})
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "workqueue_adds_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "name" && l.GetValue() == "resource detector" && m.GetCounter().GetValue() > 0 {
					return
				}
			}
		}
	}
	t.Error(`no workqueue_adds_total{name="resource detector"} after an add`)
}
