package writememo

import (
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func counts(name string) (hit, miss float64) {
	return testutil.ToFloat64(lookups.WithLabelValues(name, "hit")), testutil.ToFloat64(lookups.WithLabelValues(name, "miss"))
}

func TestResolveServesRememberedValueWhileCacheIsStale(t *testing.T) {
	m := New[string, string]("test-resolve")
	// Two writes (spec, then status) before the cache saw either.
	m.Remember("a", "1", "2", "after spec")
	m.Remember("a", "2", "3", "after status")
	for _, stale := range []string{"1", "2"} {
		if v, ok := m.Resolve("a", stale); !ok || v != "after status" {
			t.Fatalf("cache at %s: got %q %v, want the last remembered value", stale, v, ok)
		}
	}
	if m.Len() != 1 {
		t.Fatalf("entry dropped while the cache is stale")
	}
	// The cache caught up: the entry ends, the cached object is used.
	if _, ok := m.Resolve("a", "3"); ok {
		t.Fatal("a current cache must not be overridden")
	}
	if m.Len() != 0 {
		t.Fatal("entry kept after the cache caught up")
	}
	// Someone else wrote after us: the cache moved past; same outcome.
	m.Remember("b", "5", "6", "mine")
	if _, ok := m.Resolve("b", "9"); ok || m.Len() != 0 {
		t.Fatal("a cache past the remembered write must win and end the entry")
	}
	if _, ok := m.Resolve("unknown", "1"); ok {
		t.Fatal("unknown key resolved")
	}
	if hit, miss := counts("test-resolve"); hit != 2 || miss != 3 {
		t.Errorf("metrics: %v hits, %v misses; want 2 and 3", hit, miss)
	}
	if g := testutilGauge("test-resolve"); g != 0 {
		t.Errorf("entries gauge %v, want 0", g)
	}
}

func TestObserveRecognisesOwnWriteOnce(t *testing.T) {
	m := New[string, struct{}]("test-observe")
	m.Remember("t", "10", "11", struct{}{})
	if m.Observe("t", "10") {
		t.Fatal("an event older than the write is not its echo")
	}
	if !m.Observe("t", "11") {
		t.Fatal("the echo of the own write was not recognised")
	}
	if m.Observe("t", "11") {
		t.Fatal("an own write must be recognised once only")
	}
	m.Remember("t", "11", "12", struct{}{})
	if m.Observe("t", "13") || m.Len() != 0 {
		t.Fatal("a foreign version must end the entry and not count as own")
	}
	if hit, miss := counts("test-observe"); hit != 1 || miss != 2 {
		t.Errorf("metrics: %v hits, %v misses; want 1 and 2", hit, miss)
	}
}

func TestForget(t *testing.T) {
	m := New[int, int]("test-forget")
	m.Remember(1, "1", "2", 7)
	m.Forget(1)
	m.Forget(2)
	if _, ok := m.Resolve(1, "1"); ok || m.Len() != 0 {
		t.Fatal("a forgotten key still resolves")
	}
}

func TestConcurrentUse(t *testing.T) {
	m := New[int, int]("test-concurrent")
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				m.Remember(i%17, "1", "2", g)
				m.Resolve(i%17, "1")
				m.Observe(i%13, "2")
				if i%7 == 0 {
					m.Forget(i % 17)
				}
			}
		}(g)
	}
	wg.Wait()
	if got, want := testutilGauge("test-concurrent"), float64(m.Len()); got != want {
		t.Errorf("entries gauge %v, memo holds %v", got, want)
	}
}

func testutilGauge(name string) float64 { return testutil.ToFloat64(entries.WithLabelValues(name)) }
