package writememo

import (
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/propel-mc/propel/internal/shared/metricreg"
)

var (
	lookups = metricreg.CounterVec("propel_write_memo_lookups_total",
		"Lookups of a controller's write memo; result is hit (the memo answered for a stale cache or recognised an own write) or miss.",
		"memo", "result")
	entries = metricreg.GaugeVec("propel_write_memo_entries",
		"Writes a controller remembers because its cache has not shown them yet.", "memo")
)

// Memo remembers, per key, writes the cache has not shown yet. V is what
// the caller wants back for a stale cache (the written object, or
// struct{} when only the echo matters). The zero Memo is not usable; call
// New. A Memo is safe for concurrent use.
type Memo[K comparable, V any] struct {
	hit, miss prometheus.Counter
	size      prometheus.Gauge

	mu sync.Mutex
	m  map[K]*entry[V]
}

type entry[V any] struct {
	superseded []string
	written    string
	value      V
}

// New returns an empty memo whose metrics carry the label memo=name.
func New[K comparable, V any](name string) *Memo[K, V] {
	return &Memo[K, V]{
		hit: lookups.WithLabelValues(name, "hit"), miss: lookups.WithLabelValues(name, "miss"),
		size: entries.WithLabelValues(name),
		m:    map[K]*entry[V]{},
	}
}

// Remember records that a write replaced version superseded of key by
// version written, with value v. Consecutive writes before the cache
// caught up accumulate their superseded versions; the last value wins.
func (m *Memo[K, V]) Remember(key K, superseded, written string, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.m[key]
	if e == nil {
		e = &entry[V]{}
		m.m[key] = e
		m.size.Inc()
	}
	if superseded != "" {
		e.superseded = append(e.superseded, superseded)
	}
	e.written, e.value = written, v
}

// Resolve returns the remembered value when cachedVersion is one the
// remembered writes superseded (the cache is stale). Otherwise the cache
// has caught up with or moved past them: the entry is dropped and ok is
// false.
func (m *Memo[K, V]) Resolve(key K, cachedVersion string) (v V, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.m[key]
	if e != nil && slices.Contains(e.superseded, cachedVersion) {
		m.hit.Inc()
		return e.value, true
	}
	m.drop(key, e)
	m.miss.Inc()
	return v, false
}

// Observe is for cache events: it reports whether cachedVersion is exactly
// the version the last remembered write produced (the echo of an own
// write). The entry ends unless cachedVersion is still a superseded one.
func (m *Memo[K, V]) Observe(key K, cachedVersion string) (own bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.m[key]
	if e != nil && slices.Contains(e.superseded, cachedVersion) {
		return false // an older event; the write is still to come
	}
	own = e != nil && e.written != "" && e.written == cachedVersion
	m.drop(key, e)
	if own {
		m.hit.Inc()
	} else {
		m.miss.Inc()
	}
	return own
}

// Forget drops key (the object was deleted).
func (m *Memo[K, V]) Forget(key K) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.drop(key, m.m[key])
}

// Len is the number of keys with remembered writes.
func (m *Memo[K, V]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}

func (m *Memo[K, V]) drop(key K, e *entry[V]) {
	if e != nil {
		delete(m.m, key)
		m.size.Dec()
	}
}
