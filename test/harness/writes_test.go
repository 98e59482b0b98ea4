package harness

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// TestWriteCounter sends requests through a counted config: GETs and
// events are not writes; every other method is, recorded under the host.
func TestWriteCounter(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	var c WriteCounter
	cfg := c.Count(&rest.Config{Host: srv.URL}, "karmada")
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	send := func(method, path string) {
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	send(http.MethodGet, "/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member1/works/a")
	send(http.MethodPost, "/api/v1/namespaces/default/events")
	send(http.MethodPatch, "/apis/events.k8s.io/v1/namespaces/default/events/x")
	send(http.MethodPut, "/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member1/works/a/status")
	n := c.Len()
	send(http.MethodPost, "/apis/work.karmada.io/v1alpha2/namespaces/default/resourcebindings")
	send(http.MethodDelete, "/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member1/works/a")

	if c.Len() != 3 || n != 1 {
		t.Fatalf("writes %d (%d after the first), want 3 (1): %v", c.Len(), n, c.Since(0))
	}
	since := c.Since(n)
	if len(since) != 2 || since[0].Method != http.MethodPost || since[1].String() != "karmada DELETE /apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member1/works/a" {
		t.Errorf("Since(%d) = %v", n, since)
	}
	if got := c.Matching(func(w Write) bool { return strings.Contains(w.Path, "/works/") }); got != 2 {
		t.Errorf("writes to works: %d, want 2", got)
	}
	if c.Took() <= 0 {
		t.Errorf("Took() = %v, want the time the writes took", c.Took())
	}
	if s := Summarize(c.Since(0)); !strings.Contains(s, "1  karmada PUT karmada-es-member1/works/a/status") {
		t.Errorf("Summarize:%s", s)
	}
}

func TestEventually(t *testing.T) {
	var calls atomic.Int32
	Eventually(t, "third call", func(context.Context) (bool, error) {
		if calls.Add(1) < 3 {
			return false, errors.New("not yet")
		}
		return true, nil
	}, Interval(time.Millisecond))
	if calls.Load() != 3 {
		t.Errorf("cond called %d times, want 3", calls.Load())
	}

	// A wait that never holds fails the test with the last error.
	ft := &fatalRecorder{TB: t}
	func() {
		defer func() { _ = recover() }()
		Eventually(ft, "never", func(context.Context) (bool, error) { return false, errors.New("still missing") },
			Timeout(50*time.Millisecond), Interval(time.Millisecond), LogsIn("/tmp/logs"))
	}()
	if !strings.Contains(ft.msg, "never") || !strings.Contains(ft.msg, "still missing") || !strings.Contains(ft.msg, "/tmp/logs") {
		t.Errorf("failure message %q lacks what, the last error or the log directory", ft.msg)
	}
}

func TestConsistently(t *testing.T) {
	start := time.Now()
	Consistently(t, "holds", 30*time.Millisecond, func(context.Context) error { return nil }, Interval(5*time.Millisecond))
	if time.Since(start) < 30*time.Millisecond {
		t.Errorf("returned after %v, before the period", time.Since(start))
	}
	ft := &fatalRecorder{TB: t}
	func() {
		defer func() { _ = recover() }()
		Consistently(ft, "broken", time.Second, func(context.Context) error { return errors.New("deleted") }, Interval(time.Millisecond))
	}()
	if !strings.Contains(ft.msg, "broken: deleted") {
		t.Errorf("failure message %q", ft.msg)
	}
}

// fatalRecorder records Fatalf instead of failing the real test; it
// panics to stop the helper as FailNow would.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Helper() {}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic("fatal")
}
