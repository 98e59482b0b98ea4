package localenv

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestForEachBoundedRunsEveryIndexWithAtMostLimitAtOnce(t *testing.T) {
	var running, peak atomic.Int32
	var mu sync.Mutex
	seen := map[int]int{}
	forEachBounded(20, 4, func(i int) {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		running.Add(-1)
		mu.Lock()
		seen[i]++
		mu.Unlock()
	})
	if len(seen) != 20 {
		t.Fatalf("ran %d distinct indexes, want 20", len(seen))
	}
	for i, c := range seen {
		if c != 1 {
			t.Errorf("index %d ran %d times", i, c)
		}
	}
	if p := peak.Load(); p > 4 || p < 2 {
		t.Errorf("at most %d ran at once, want between 2 and 4", p)
	}
}
