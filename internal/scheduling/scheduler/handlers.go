package scheduler

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/metrics"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]

// admits is the queue admission rule: the binding names this scheduler,
// scheduling is not suspended, and a policy or controller claims it.
func (s *Scheduler) admits(b *binding) bool {
	return b.schedulerName() == s.name && !b.schedulingSuspended() && b.claimed()
}

// enqueue adds b with its schedule priority (higher first), or with
// priority 0 when the PriorityBasedScheduling gate is off.
func (s *Scheduler) enqueue(q queue, b *binding) {
	req := reconcile.Request{NamespacedName: b.key()}
	if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok {
		p := 0
		if !s.ignorePriority {
			p = b.priority()
		}
		pq.AddWithOpts(priorityqueue.AddOpts{Priority: &p}, req)
		return
	}
	q.Add(req)
}

// bindingHandler enqueues admitted bindings on add and on generation
// changes; status-only updates are ignored, deletes only drop bookkeeping.
type bindingHandler struct{ s *Scheduler }

func (h *bindingHandler) Create(_ context.Context, e event.CreateEvent, q queue) {
	h.s.observeGroups(e.Object)
	if b, ok := wrap(e.Object); ok && h.s.admits(b) {
		h.s.enqueue(q, b)
		metrics.BindingQueued(metrics.EventBindingAdd)
	}
}

func (h *bindingHandler) Update(_ context.Context, e event.UpdateEvent, q queue) {
	key := types.NamespacedName{Namespace: e.ObjectNew.GetNamespace(), Name: e.ObjectNew.GetName()}
	h.s.writes.Observe(key, e.ObjectNew.GetResourceVersion())
	h.s.observeGroups(e.ObjectNew)
	// Before the generation check: the status does not bump it.
	if b, ok := wrap(e.ObjectNew); ok {
		if !h.s.assumed.overcommitProtection {
			h.s.assumed.observeApplied(key, b.status)
		} else if old, ok := wrap(e.ObjectOld); ok {
			h.s.assumed.observeHealth(key, old.status, b.status)
		}
	}
	if e.ObjectOld.GetGeneration() == e.ObjectNew.GetGeneration() {
		return
	}
	if b, ok := wrap(e.ObjectNew); ok && h.s.admits(b) {
		h.s.enqueue(q, b)
		metrics.BindingQueued(metrics.EventBindingUpdate)
	}
}

func (h *bindingHandler) Delete(_ context.Context, e event.DeleteEvent, _ queue) {
	key := types.NamespacedName{Namespace: e.Object.GetNamespace(), Name: e.Object.GetName()}
	h.s.writes.Forget(key)
	h.s.assumed.forget(key)
	if h.s.groups != nil {
		h.s.groups.Forget(key)
	}
}

func (h *bindingHandler) Generic(_ context.Context, e event.GenericEvent, q queue) {
	if b, ok := wrap(e.Object); ok && h.s.admits(b) {
		h.s.enqueue(q, b)
	}
}

// observeGroups feeds a ResourceBinding from the cache to the workload
// affinity group index (gate WorkloadAffinity). Every ResourceBinding
// counts, whichever scheduler it names: its placement is what peers must
// follow or avoid.
func (s *Scheduler) observeGroups(obj client.Object) {
	if rb, ok := obj.(*workv1alpha2.ResourceBinding); ok && s.groups != nil {
		s.groups.Observe(rb)
	}
}
