package execution

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/propel-mc/propel/internal/shared/workapply"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// refCache keeps the identity of each Work's manifests for its current
// generation, so that a sync whose member objects are up to date decodes
// no manifest at all.
type refCache struct {
	mu sync.Mutex
	m  map[types.NamespacedName]refEntry
}

type refEntry struct {
	uid        types.UID
	generation int64
	refs       []workapply.Ref
}

func newRefCache() *refCache { return &refCache{m: map[types.NamespacedName]refEntry{}} }

// of returns the manifest identities of work.
func (c *refCache) of(work *workv1alpha1.Work) ([]workapply.Ref, error) {
	key := types.NamespacedName{Namespace: work.Namespace, Name: work.Name}
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && e.uid == work.UID && e.generation == work.Generation {
		return e.refs, nil
	}
	refs, err := workapply.Refs(work)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.m[key] = refEntry{uid: work.UID, generation: work.Generation, refs: refs}
	c.mu.Unlock()
	return refs, nil
}

func (c *refCache) forget(key types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, key)
}
