package templatecontroller

import (
	"context"
	"sync"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// waitingList remembers templates no policy matched yet, so that a policy
// created later finds them without listing every resource.
type waitingList struct {
	mu   sync.Mutex
	keys map[Key]struct{}
}

func newWaitingList() *waitingList { return &waitingList{keys: map[Key]struct{}{}} }

func (w *waitingList) add(k Key) (added bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.keys[k]; ok {
		return false
	}
	w.keys[k] = struct{}{}
	return true
}

func (w *waitingList) remove(k Key) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.keys, k)
}

func (w *waitingList) snapshot() []Key {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]Key, 0, len(w.keys))
	for k := range w.keys {
		out = append(out, k)
	}
	return out
}

// WakeWaiting queues the waiting templates p now selects, once every
// override p depends on exists (the policy controller calls it). As in
// Karmada, a Lazy policy claims them but leaves their propagation to
// their next real change.
func (r *Reconciler) WakeWaiting(ctx context.Context, p *policyindex.Policy) error {
	var matched []Key
	for _, k := range r.waiting.snapshot() {
		t, err := r.templates.Lookup(ctx, k)
		if err != nil {
			continue
		}
		if p.Selects(t) {
			matched = append(matched, k)
		}
	}
	if len(matched) == 0 {
		return nil
	}
	if err := r.checkDependentOverrides(ctx, p); err != nil {
		return err
	}
	lazy := p.Spec.ActivationPreference == policyv1alpha1.LazyActivation
	for _, k := range matched {
		r.waiting.remove(k)
		r.Enqueue(k, lazy)
	}
	return nil
}
