// Package placementbacklog lets status work give way to placement work.
//
// During a storm of new or changed templates, the controllers that place
// them (detector, scheduler, binding, execution) and those that report
// status back (binding status aggregation, template status) share one
// API server and one machine. Placement is what users wait for; status
// can follow. The placement controllers register their work queues here,
// and status workers Wait while those queues hold items, for at most a
// bounded time so that status is delayed under load, never starved. A
// status worker that waits also lets several changes of one binding
// coalesce in its queue, which saves writes.
package placementbacklog

import (
	"context"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// Queue is a work queue whose length counts items waiting for a worker
// (client-go's workqueue interfaces have Len).
// It is an alias so that packages can declare the Track method in their
// own interfaces without importing this one.
type Queue = interface {
	Len() int
}

// DefaultMaxWait bounds how long one status reconcile gives way.
const DefaultMaxWait = 10 * time.Second

// pollInterval is how often a waiting worker looks at the queues again.
const pollInterval = 50 * time.Millisecond

// Backlog is the placement work waiting in the registered queues. A nil
// *Backlog has no backlog: Wait returns at once.
type Backlog struct {
	maxWait time.Duration
	mu      sync.RWMutex
	queues  []Queue
}

// New returns an empty backlog whose Wait gives way for at most maxWait
// (DefaultMaxWait when not positive).
func New(maxWait time.Duration) *Backlog {
	if maxWait <= 0 {
		maxWait = DefaultMaxWait
	}
	return &Backlog{maxWait: maxWait}
}

// Track counts q's items as placement work.
func (b *Backlog) Track(q Queue) {
	if b == nil || q == nil {
		return
	}
	b.mu.Lock()
	b.queues = append(b.queues, q)
	b.mu.Unlock()
}

// Pending is the number of placement items waiting for a worker.
func (b *Backlog) Pending() int {
	if b == nil {
		return 0
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	n := 0
	for _, q := range b.queues {
		n += q.Len()
	}
	return n
}

// Wait returns once no placement work is pending, maxWait has passed or
// ctx ended, and says how long it waited.
func (b *Backlog) Wait(ctx context.Context) time.Duration {
	if b.Pending() == 0 {
		return 0
	}
	start := time.Now()
	deadline := time.NewTimer(b.maxWait)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return time.Since(start)
		case <-deadline.C:
			return time.Since(start)
		case <-tick.C:
			if b.Pending() == 0 {
				return time.Since(start)
			}
		}
	}
}

// NewQueue is a controller-runtime NewQueue option for a placement
// controller: it builds the queue controller-runtime would build by
// default (its priority queue unless usePriorityQueue is false, as the
// manager's controller options say) and tracks it. A nil b returns nil,
// which leaves controller-runtime's default in place.
func NewQueue[T comparable](b *Backlog, usePriorityQueue bool) func(string, workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
	if b == nil {
		return nil
	}
	return func(name string, limiter workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
		var q workqueue.TypedRateLimitingInterface[T]
		if usePriorityQueue {
			q = priorityqueue.New(name, func(o *priorityqueue.Opts[T]) { o.RateLimiter = limiter })
		} else {
			q = workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[T]{Name: name})
		}
		b.Track(q)
		return q
	}
}
