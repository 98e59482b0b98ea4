package templatecontroller

import "sync"

// lazyFlags remembers, per queued template, whether every change since it
// was queued touched only Karmada-owned metadata (which a policy with
// activationPreference Lazy does not act on). The flag is kept beside the
// queue, not in the key, so the queue still deduplicates a template.
type lazyFlags struct {
	mu    sync.Mutex
	flags map[Key]bool
}

func newLazyFlags() *lazyFlags { return &lazyFlags{flags: map[Key]bool{}} }

// record notes lazy for k; any real change makes the pending item non-lazy.
func (l *lazyFlags) record(k Key, lazy bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if prev, ok := l.flags[k]; ok {
		lazy = prev && lazy
	}
	l.flags[k] = lazy
}

// take returns and clears k's flag (false when none is recorded).
func (l *lazyFlags) take(k Key) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	v := l.flags[k]
	delete(l.flags, k)
	return v
}
