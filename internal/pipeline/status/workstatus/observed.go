package workstatus

import (
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"

	"github.com/propel-mc/propel/internal/shared/workapply"
)

// observation is the state of a member object a manifest status was
// reflected from.
type observation struct {
	uid             types.UID
	resourceVersion string
	generation      int64
}

func observationOf(obj *unstructured.Unstructured) observation {
	return observation{uid: obj.GetUID(), resourceVersion: obj.GetResourceVersion(), generation: obj.GetGeneration()}
}

// later reports whether a is known to be a later state than b.
//
// Resource versions are opaque to clients in general, but every member
// API server Propel talks to stores objects in etcd and uses the store's
// revision as resourceVersion. The revision grows with every write to the
// store, so within one object's lifetime, and across the objects of one
// resource in one store, a larger version is a later state (the order
// k8s.io/apimachinery/pkg/util/resourceversion implements). A version that
// does not parse as such gives no order; within one object (same UID) a
// higher generation is then still later (equal generations say nothing:
// status writes do not change it).
func later(a, b observation) bool {
	if cmp, err := resourceversion.CompareResourceVersion(a.resourceVersion, b.resourceVersion); err == nil {
		return cmp > 0
	}
	return a.uid == b.uid && a.generation > b.generation
}

// pick returns the member object to reflect for one manifest, or nil to
// keep the manifest's current entry.
//
//   - applied is the object as the execution controller's apply returned
//     it, cached the member cache's copy (nil when absent or not listed
//     yet): the later one wins, else the applied one (it is fresh from the
//     API server). They come from the same member at about the same time,
//     so their versions compare even across UIDs: a cache still holding a
//     deleted object loses to the recreated one, and a recreation after
//     the apply wins over the applied object.
//   - last is what the manifest's current entry was reflected from (nil if
//     unknown). An entry reflected from a later state of the same object
//     is never replaced by an earlier one (an apply-time observation
//     arriving after a member event). A different UID is another object:
//     the entry of an earlier incarnation, possibly from a member store
//     since replaced (whose revisions started again), never holds back
//     the current object.
func pick(applied, cached *unstructured.Unstructured, last *observation) *unstructured.Unstructured {
	obj := applied
	if cached != nil && (obj == nil || later(observationOf(cached), observationOf(obj))) {
		obj = cached
	}
	if obj == nil {
		return nil
	}
	if last != nil && last.uid == obj.GetUID() && later(*last, observationOf(obj)) {
		return nil
	}
	return obj
}

// observations remembers, per Work, what each manifest's written entry was
// reflected from, so that an older observation does not overwrite it. It
// is memory only: after a restart the first reflection takes whatever it
// finds, as before. One entry per Work, dropped when the Work goes.
type observations struct {
	mu sync.Mutex
	m  map[types.NamespacedName]workObservations
}

type workObservations struct {
	workUID types.UID
	// byOrdinal is replaced whole, never mutated, so a reader may keep it.
	byOrdinal map[int]observation
}

func newObservations() *observations {
	return &observations{m: map[types.NamespacedName]workObservations{}}
}

// get returns the observations of the Work key with UID workUID (nil
// when none, or when they belong to an earlier Work of that name).
func (o *observations) get(key types.NamespacedName, workUID types.UID) map[int]observation {
	o.mu.Lock()
	defer o.mu.Unlock()
	if w, ok := o.m[key]; ok && w.workUID == workUID {
		return w.byOrdinal
	}
	return nil
}

// put records that the Work's status now holds the fresh observations and,
// for the other manifests of refs, the ones recorded before.
func (o *observations) put(key types.NamespacedName, workUID types.UID, refs []workapply.Ref, fresh map[int]observation) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var prev map[int]observation
	if w, ok := o.m[key]; ok && w.workUID == workUID {
		prev = w.byOrdinal
	}
	next := make(map[int]observation, len(refs))
	for _, ref := range refs {
		if ob, ok := fresh[ref.Ordinal]; ok {
			next[ref.Ordinal] = ob
		} else if ob, ok := prev[ref.Ordinal]; ok {
			next[ref.Ordinal] = ob
		}
	}
	if len(next) == 0 {
		delete(o.m, key)
		return
	}
	o.m[key] = workObservations{workUID: workUID, byOrdinal: next}
}

func (o *observations) forget(key types.NamespacedName) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.m, key)
}
