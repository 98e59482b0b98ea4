package scheduler

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// writeMemo lets the controller read its own writes before the cache has
// observed them. After each write it remembers the object the API server
// returned and the resourceVersions that write superseded; a cached
// object still at one of those versions is replaced by the remembered
// one. Without it, the reconcile triggered by the scheduler's own spec
// patch could see the old status and write it again.
type writeMemo struct {
	mu      sync.Mutex
	entries map[types.NamespacedName]*memoEntry
}

type memoEntry struct {
	superseded []string
	latest     client.Object
}

func newWriteMemo() *writeMemo {
	return &writeMemo{entries: map[types.NamespacedName]*memoEntry{}}
}

// remember records that a write replaced version supersededRV of key by
// latest.
func (m *writeMemo) remember(key types.NamespacedName, supersededRV string, latest client.Object) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.entries[key]
	if e == nil {
		e = &memoEntry{}
		m.entries[key] = e
	}
	e.superseded = append(e.superseded, supersededRV)
	e.latest = latest.DeepCopyObject().(client.Object)
}

// resolve returns the freshest known state of cached: the remembered
// object when cached is at a superseded version, else cached itself (and
// the memo entry is dropped, the cache having caught up or moved on).
func (m *writeMemo) resolve(key types.NamespacedName, cached client.Object) client.Object {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.entries[key]
	if e == nil {
		return cached
	}
	if slices.Contains(e.superseded, cached.GetResourceVersion()) {
		return e.latest.DeepCopyObject().(client.Object)
	}
	delete(m.entries, key)
	return cached
}

// observe drops the entry of key once the cache holds a version the memo
// did not supersede: the cache has caught up with (or moved past) the
// remembered write, which must not be kept for the binding's lifetime.
func (m *writeMemo) observe(key types.NamespacedName, cachedRV string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.entries[key]; e != nil && !slices.Contains(e.superseded, cachedRV) {
		delete(m.entries, key)
	}
}

// forget drops the entry of a deleted binding.
func (m *writeMemo) forget(key types.NamespacedName) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.entries, key)
}
