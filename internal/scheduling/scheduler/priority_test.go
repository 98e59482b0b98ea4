package scheduler

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// burstOrder queues a burst of bindings with priorities 0..4 (lowest
// first) through the binding handler into a priority queue and returns the
// priorities in the order the workers get them.
func burstOrder(t *testing.T, ignorePriority bool) []int32 {
	t.Helper()
	s, err := New(Options{IgnorePriority: ignorePriority})
	if err != nil {
		t.Fatal(err)
	}
	q := priorityqueue.New[reconcile.Request]("priority-test")
	defer q.ShutDown()
	h := &bindingHandler{s: s}
	prio := map[string]int32{}
	for i := range 20 {
		p := int32(i / 4)
		rb := &workv1alpha2.ResourceBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("rb-%02d", i),
				Labels: map[string]string{names.PropagationPolicyPermanentIDLabel: "id"}},
			Spec: workv1alpha2.ResourceBindingSpec{SchedulePriority: &workv1alpha2.SchedulePriority{Priority: p}},
		}
		prio[rb.Name] = p
		h.Create(context.Background(), event.CreateEvent{Object: rb}, q)
	}
	var out []int32
	for range 20 {
		req, _ := q.Get()
		out = append(out, prio[req.Name])
		q.Done(req)
	}
	return out
}

func TestBurstServedByPriority(t *testing.T) {
	order := burstOrder(t, false)
	for i := 1; i < len(order); i++ {
		if order[i] > order[i-1] {
			t.Fatalf("priority %d served after %d: %v", order[i], order[i-1], order)
		}
	}
	// With PriorityBasedScheduling off, arrival order: the lowest first.
	if order := burstOrder(t, true); order[0] != 0 {
		t.Errorf("gate off: first served has priority %d, want arrival order: %v", order[0], order)
	}
}
