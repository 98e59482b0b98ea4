package harness

import (
	"fmt"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// Write is one mutating API request (any method but GET) a counted client
// sent.
type Write struct {
	// Host names the cluster the request went to, as given to Count.
	Host   string
	Method string
	Path   string
}

func (w Write) String() string { return w.Host + " " + w.Method + " " + w.Path }

// WriteCounter records the mutating API requests of the clients built from
// the rest.Configs it counts, events excluded: how many writes a
// controller costs is what the integration tests assert. Safe for
// concurrent use.
type WriteCounter struct {
	mu     sync.Mutex
	writes []Write
	took   time.Duration
}

// Count returns a copy of cfg whose requests are recorded under host.
// With go test -v every write is printed as it happens.
func (c *WriteCounter) Count(cfg *rest.Config, host string) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(next http.RoundTripper) http.RoundTripper {
		return countingTransport{next: next, counter: c, host: host}
	})
	return cfg
}

type countingTransport struct {
	next    http.RoundTripper
	counter *WriteCounter
	host    string
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet || isEvent(r.URL.Path) {
		return t.next.RoundTrip(r)
	}
	w := Write{Host: t.host, Method: r.Method, Path: r.URL.Path}
	if testing.Verbose() {
		fmt.Println("write:", w)
	}
	// Recorded before it is sent, so that a test that sees the effect of
	// a write also sees it counted.
	t.counter.add(w)
	start := time.Now()
	resp, err := t.next.RoundTrip(r)
	t.counter.addTook(time.Since(start))
	return resp, err
}

// isEvent matches core/v1 and events.k8s.io Event paths (collection and
// object): events are the user's record, not the state a controller
// converges.
func isEvent(p string) bool { return path.Base(p) == "events" || path.Base(path.Dir(p)) == "events" }

func (c *WriteCounter) add(w Write) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, w)
}

func (c *WriteCounter) addTook(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.took += d
}

// Len is the number of writes so far.
func (c *WriteCounter) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.writes)
}

// Since returns the writes after the first n (a Len taken earlier).
func (c *WriteCounter) Since(n int) []Write {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Write(nil), c.writes[min(n, len(c.writes)):]...)
}

// Matching counts the writes for which keep is true.
func (c *WriteCounter) Matching(keep func(Write) bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, w := range c.writes {
		if keep(w) {
			n++
		}
	}
	return n
}

// Took is the time the API servers spent answering the writes, summed.
func (c *WriteCounter) Took() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.took
}

// Quiet waits until nothing has been written for quiet (10 polls of
// DefaultInterval when 0), so that what follows counts only its own
// writes. It fails the test when writes do not stop within DefaultTimeout.
func (c *WriteCounter) Quiet(t testing.TB, quiet time.Duration) {
	t.Helper()
	if quiet == 0 {
		quiet = 10 * DefaultInterval
	}
	deadline := time.Now().Add(DefaultTimeout)
	last, since := c.Len(), time.Now()
	for time.Since(since) < quiet {
		if time.Now().After(deadline) {
			t.Fatalf("writes did not stop within %v; the last ones: %s", DefaultTimeout, Summarize(c.Since(max(0, c.Len()-10))))
		}
		time.Sleep(DefaultInterval)
		if now := c.Len(); now != last {
			last, since = now, time.Now()
		}
	}
}

// Summarize counts writes by host, method and the last four path segments
// (kind, namespace, name, subresource), one line each, for a test log.
func Summarize(writes []Write) string {
	counts := map[string]int{}
	for _, w := range writes {
		segs := strings.Split(strings.Trim(w.Path, "/"), "/")
		counts[w.Host+" "+w.Method+" "+strings.Join(segs[max(0, len(segs)-4):], "/")]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "\n  %3d  %s", counts[k], k)
	}
	return b.String()
}
