package vm

import (
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// guardTick is how often the memory guard samples the heap while calls run.
const guardTick = 2 * time.Millisecond

const heapAllocsMetric = "/gc/heap/allocs:bytes"

// memoryGuard decides when calls measure their footprint. Instruction
// counting cannot catch a script that doubles a string a few dozen times,
// and Go cannot tell which goroutine allocated what, so a goroutine samples
// the process's cumulative heap allocations while calls are active. Each
// time the process has allocated another budget's worth since an active
// call last measured itself, the guard asks that call to measure what its
// own state holds (budget.overBudget); only that measure can stop the call.
// Allocations of other goroutines therefore only cause extra measurements
// (at most one per budget's worth of allocations), never a limit error.
// It runs only while calls are active.
type memoryGuard struct {
	limit   int64
	active  atomic.Int32
	mu      sync.Mutex
	budgets map[*budget]struct{}
	running bool
	// asked counts the measurements asked for (read by tests).
	asked atomic.Int64
}

func newMemoryGuard(limit int64) *memoryGuard {
	return &memoryGuard{limit: limit, budgets: map[*budget]struct{}{}}
}

func (g *memoryGuard) enabled() bool { return g.limit > 0 }

func (g *memoryGuard) register(b *budget) {
	g.mu.Lock()
	g.budgets[b] = struct{}{}
	g.mu.Unlock()
}

func (g *memoryGuard) unregister(b *budget) {
	g.mu.Lock()
	delete(g.budgets, b)
	g.mu.Unlock()
}

// enter marks the start of a call whose budget is already armed.
func (g *memoryGuard) enter() {
	if g.enabled() && g.active.Add(1) == 1 {
		g.mu.Lock()
		if !g.running {
			g.running = true
			go g.loop()
		}
		g.mu.Unlock()
	}
}

// leave marks the end of a call.
func (g *memoryGuard) leave() {
	if g.enabled() {
		g.active.Add(-1)
	}
}

func (g *memoryGuard) loop() {
	ticker := time.NewTicker(guardTick)
	defer ticker.Stop()
	sample := []metrics.Sample{{Name: heapAllocsMetric}}
	var budgets []*budget
	for range ticker.C {
		g.mu.Lock()
		if g.active.Load() == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		budgets = budgets[:0]
		for b := range g.budgets {
			budgets = append(budgets, b)
		}
		g.mu.Unlock()
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			continue
		}
		g.charge(budgets, int64(sample[0].Value.Uint64()))
	}
}

func (g *memoryGuard) charge(budgets []*budget, allocated int64) {
	for _, b := range budgets {
		b.mu.Lock()
		switch {
		case !b.active:
		case b.allocBase < 0:
			b.allocBase = allocated
		case allocated-b.allocBase > g.limit:
			b.allocBase = allocated
			b.measure.Store(true)
			g.asked.Add(1)
		}
		b.mu.Unlock()
	}
}
