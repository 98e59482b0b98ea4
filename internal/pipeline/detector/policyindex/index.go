package policyindex

import (
	"slices"
	"strings"
	"sync"
)

// Index holds the live PropagationPolicies and ClusterPropagationPolicies,
// each kind indexed by the apiVersion/kind of its selectors, so matching a
// template only looks at policies that can select its kind: matching cost
// does not grow with the number of unrelated policies. Watch keeps it
// current; it is the only in-memory copy of the policies the detector has.
type Index struct {
	pps, cpps *kindIndex
}

// New returns an empty index.
func New() *Index { return &Index{pps: newKindIndex(), cpps: newKindIndex()} }

// Match finds the best policy for obj: a PropagationPolicy of its namespace
// always beats any ClusterPropagationPolicy.
func (ix *Index) Match(obj Selectable) *Policy {
	if obj.GetNamespace() != "" {
		if p := Best(ix.pps.candidates(obj, true), obj); p != nil {
			return p
		}
	}
	return Best(ix.cpps.candidates(obj, false), obj)
}

// Upsert replaces the indexed copy of p.
func (ix *Index) Upsert(p *Policy) { ix.of(p.Cluster).upsert(p) }

// Remove drops the policy of that kind and key.
func (ix *Index) Remove(cluster bool, key string) { ix.of(cluster).remove(key) }

// Candidates returns the policies of one kind that may select obj: for
// PropagationPolicies only those of obj's namespace. Sorted by key.
func (ix *Index) Candidates(cluster bool, obj Selectable) []*Policy {
	return ix.of(cluster).candidates(obj, !cluster)
}

func (ix *Index) of(cluster bool) *kindIndex {
	if cluster {
		return ix.cpps
	}
	return ix.pps
}

// kindIndex is the index of one policy kind.
type kindIndex struct {
	mu sync.RWMutex
	// byKind maps apiVersion and kind to policies by key.
	byKind map[kindKey]map[string]*Policy
	// kinds remembers each policy's index keys for removal.
	kinds map[string][]kindKey
}

// kindKey is a selector's apiVersion and kind.
type kindKey struct{ apiVersion, kind string }

func newKindIndex() *kindIndex {
	return &kindIndex{byKind: map[kindKey]map[string]*Policy{}, kinds: map[string][]kindKey{}}
}

func (ix *kindIndex) upsert(p *Policy) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.removeLocked(p.Key())
	var keys []kindKey
	for _, s := range p.Spec.ResourceSelectors {
		k := kindKey{s.APIVersion, s.Kind}
		if ix.byKind[k] == nil {
			ix.byKind[k] = map[string]*Policy{}
		}
		if _, dup := ix.byKind[k][p.Key()]; !dup {
			keys = append(keys, k)
		}
		ix.byKind[k][p.Key()] = p
	}
	ix.kinds[p.Key()] = keys
}

func (ix *kindIndex) remove(key string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.removeLocked(key)
}

func (ix *kindIndex) removeLocked(key string) {
	for _, k := range ix.kinds[key] {
		delete(ix.byKind[k], key)
		if len(ix.byKind[k]) == 0 {
			delete(ix.byKind, k)
		}
	}
	delete(ix.kinds, key)
}

func (ix *kindIndex) candidates(obj Selectable, namespaced bool) []*Policy {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var out []*Policy
	for _, p := range ix.byKind[kindKey{obj.GetAPIVersion(), obj.GetKind()}] {
		if namespaced && p.Namespace != obj.GetNamespace() {
			continue
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *Policy) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}
