package templatecontroller

import "sync"

// idWaiters parks the templates whose matching policy has no permanent id
// yet (the policy controller writes it moments after the policy is
// created) and hands them back when the policy's id reaches the index.
// Failing those templates instead would retry each with a growing backoff,
// seconds per template when many policies are created at once.
type idWaiters struct {
	mu sync.Mutex
	// parked: policy key -> templates waiting for its id.
	parked map[string]map[Key]struct{}
	// withID: policies the index has seen with an id.
	withID map[string]bool
}

func newIDWaiters() *idWaiters {
	return &idWaiters{parked: map[string]map[Key]struct{}{}, withID: map[string]bool{}}
}

// park records that k waits for policy's id. It returns false when the id
// has arrived meanwhile: the caller should retry k at once.
func (w *idWaiters) park(policy string, k Key) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.withID[policy] {
		return false
	}
	if w.parked[policy] == nil {
		w.parked[policy] = map[Key]struct{}{}
	}
	w.parked[policy][k] = struct{}{}
	return true
}

// idKnown records that policy has an id and returns the templates that
// waited for it.
func (w *idWaiters) idKnown(policy string) []Key {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.withID[policy] = true
	keys := make([]Key, 0, len(w.parked[policy]))
	for k := range w.parked[policy] {
		keys = append(keys, k)
	}
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
