package templatecontroller

import "sync"

// idWaiters parks the templates whose matching policy has no permanent id
// yet (the policy controller writes it moments after the policy is
// created) and hands them back when the policy's id reaches the index.
// Failing those templates instead would retry each with a growing backoff,
// seconds per template when many policies are created at once.
type idWaiters struct {
	mu sync.Mutex
	// parked: policy key -> templates waiting for its id, with the lazy
	// flag they were queued with (a Lazy policy must not act on them
	// later for want of a real change).
	parked map[string]map[Key]bool
	// withID: policies the index has seen with an id.
	withID map[string]bool
}

func newIDWaiters() *idWaiters {
	return &idWaiters{parked: map[string]map[Key]bool{}, withID: map[string]bool{}}
}

// park records that k, queued with lazy, waits for policy's id; a real
// change while parked makes it non-lazy. It returns false when the id has
// arrived meanwhile: the caller should retry k at once.
func (w *idWaiters) park(policy string, k Key, lazy bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.withID[policy] {
		return false
	}
	if w.parked[policy] == nil {
		w.parked[policy] = map[Key]bool{}
	}
	if prev, ok := w.parked[policy][k]; ok {
		lazy = prev && lazy
	}
	w.parked[policy][k] = lazy
	return true
}

// idKnown records that policy has an id and returns the templates that
// waited for it, with their lazy flags.
func (w *idWaiters) idKnown(policy string) map[Key]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.withID[policy] = true
	keys := w.parked[policy]
	delete(w.parked, policy)
	return keys
}

// idLost records that policy has no id (any more: its label was removed
// and the policy controller will restore it), so templates park again.
func (w *idWaiters) idLost(policy string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.withID, policy)
}

// forget drops a deleted policy.
func (w *idWaiters) forget(policy string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.withID, policy)
	delete(w.parked, policy)
}
