package membercluster

import (
	"context"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// WorkQueue feeds member object events into a controller's queue: it is a
// controller-runtime source that only captures the queue, so that an
// EventHandler can enqueue Works without blocking the informer. Events
// that arrive before the controller starts are dropped; the controller's
// initial list of Works covers them.
//
// Delay, when set, holds each Work back that long: a burst of events (a
// Deployment rolling out in a member) then costs one reconcile, and at most
// one write, instead of one per event.
type WorkQueue struct {
	Delay time.Duration
	queue atomic.Pointer[workqueue.TypedRateLimitingInterface[reconcile.Request]]
}

// Source is passed to the controller builder's WatchesRawSource.
func (w *WorkQueue) Source() source.Source {
	return source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		w.queue.Store(&q)
		return nil
	})
}

// Enqueue adds the Work of ev to the queue.
func (w *WorkQueue) Enqueue(ev ObjectEvent) {
	w.EnqueueWork(ev.Work)
}

// EnqueueWork adds work to the queue.
func (w *WorkQueue) EnqueueWork(work types.NamespacedName) {
	q := w.queue.Load()
	switch {
	case q == nil:
	case w.Delay > 0:
		(*q).AddAfter(reconcile.Request{NamespacedName: work}, w.Delay)
	default:
		(*q).Add(reconcile.Request{NamespacedName: work})
	}
}
