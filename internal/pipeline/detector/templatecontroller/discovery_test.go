package templatecontroller

import (
	"errors"
	"testing"
	"time"
)

// A partial discovery is retried after 1s, 2s, 4s ... up to the interval;
// a complete one waits the interval and resets the backoff.
func TestNextDiscovery(t *testing.T) {
	interval, failed := 10*time.Second, errors.New("discover served APIs: group failed")
	retry := discoveryRetryMin
	var waits []time.Duration
	for range 5 {
		var wait time.Duration
		wait, retry = nextDiscovery(failed, retry, interval)
		waits = append(waits, wait)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second}
	for i := range want {
		if waits[i] != want[i] {
			t.Fatalf("waits after partial discoveries = %v, want %v", waits, want)
		}
	}
	wait, retry := nextDiscovery(nil, retry, interval)
	if wait != interval || retry != discoveryRetryMin {
		t.Fatalf("after a complete discovery: wait %v, next retry %v; want %v, %v", wait, retry, interval, discoveryRetryMin)
	}
}
