package vm

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

type fakeState struct{}

func (fakeState) close() {}

func poolCount(t *testing.T, metric, label, value string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != metric {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// TestPoolCountsTakesAndReturns: Karmada's pool metrics count a created
// state as from=new, a reused one as from=pool, a kept one as to=pool and
// a closed one as to=destroyed.
func TestPoolCountsTakesAndReturns(t *testing.T) {
	const gets, puts = "pool_get_operation_total", "pool_put_operation_total"
	newBefore, reusedBefore := poolCount(t, gets, "from", "new"), poolCount(t, gets, "from", "pool")
	keptBefore, destroyedBefore := poolCount(t, puts, "to", "pool"), poolCount(t, puts, "to", "destroyed")
	p := newPool(1, func() (fakeState, error) { return fakeState{}, nil })
	s, err := p.get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p.put(s)
	if s, err = p.get(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.discard(s)
	for _, c := range []struct {
		metric, label, value string
		before               float64
	}{
		{gets, "from", "new", newBefore}, {gets, "from", "pool", reusedBefore},
		{puts, "to", "pool", keptBefore}, {puts, "to", "destroyed", destroyedBefore},
	} {
		if got := poolCount(t, c.metric, c.label, c.value) - c.before; got != 1 {
			t.Errorf("%s{%s=%s} grew by %v, want 1", c.metric, c.label, c.value, got)
		}
	}
}
