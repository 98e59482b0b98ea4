package execution

import (
	"hash/maphash"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// objectKey identifies a member object.
type objectKey struct {
	cluster   string
	gvk       schema.GroupVersionKind
	namespace string
	name      string
}

func keyOf(cluster string, obj *unstructured.Unstructured) objectKey {
	return objectKey{cluster: cluster, gvk: obj.GroupVersionKind(), namespace: obj.GetNamespace(), name: obj.GetName()}
}

// versionRecord is what Propel last wrote, or last found up to date, for a
// member object, and from which Work generation.
type versionRecord struct {
	workUID            types.UID
	workGeneration     int64
	workPermanentID    string
	conflictResolution string
	uid                types.UID
	resourceVersion    string
	generation         int64
	// metadata fingerprints the object's labels and annotations.
	metadata uint64
}

// versionRecords remembers, per member object, the version Propel last
// wrote or verified. It lets a reconcile skip the comparison when nothing
// changed on either side, and lets the informer handler ignore the echo of
// Propel's own writes.
//
// It also remembers objects found to exist without being Propel's: the
// informers cache only managed objects, so for these a cache miss is no
// reason to try a create.
type versionRecords struct {
	mu        sync.RWMutex
	m         map[objectKey]versionRecord
	unmanaged map[objectKey]bool
}

func newVersionRecords() *versionRecords {
	return &versionRecords{m: map[objectKey]versionRecord{}, unmanaged: map[objectKey]bool{}}
}

// markUnmanaged records that key exists in its member but is not Propel's.
func (v *versionRecords) markUnmanaged(key objectKey) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.unmanaged[key] = true
}

func (v *versionRecords) isUnmanaged(key objectKey) bool {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.unmanaged[key]
}

func (v *versionRecords) get(key objectKey) (versionRecord, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	rec, ok := v.m[key]
	return rec, ok
}

// store records obj (the member's state after a write or a verified no-op)
// as matching work's current spec.
func (v *versionRecords) store(key objectKey, work *workv1alpha1.Work, obj *unstructured.Unstructured) {
	rec := recordFor(work)
	rec.uid, rec.resourceVersion, rec.generation = obj.GetUID(), obj.GetResourceVersion(), obj.GetGeneration()
	rec.metadata = metadataFingerprint(obj)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.m[key] = rec
	delete(v.unmanaged, key)
}

func (v *versionRecords) forget(key objectKey) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.m, key)
	delete(v.unmanaged, key)
}

func recordFor(work *workv1alpha1.Work) versionRecord {
	return versionRecord{workUID: work.UID, workGeneration: work.Generation, workPermanentID: permanentID(work),
		conflictResolution: work.Annotations[names.ConflictResolutionAnnotation]}
}

// unchangedSince reports whether neither the Work (its spec and the
// metadata the manifest takes from it) nor observed changed since rec was
// stored. Objects with a generation are compared by generation (their
// status churns the resourceVersion) plus a fingerprint of their labels
// and annotations, whose changes do not bump the generation; other objects
// by resourceVersion.
func (rec versionRecord) unchangedSince(work *workv1alpha1.Work, observed *unstructured.Unstructured) bool {
	if rec.workUID != work.UID || rec.workGeneration != work.Generation || rec.workPermanentID != permanentID(work) ||
		rec.conflictResolution != work.Annotations[names.ConflictResolutionAnnotation] || rec.uid != observed.GetUID() {
		return false
	}
	if gen := observed.GetGeneration(); gen > 0 {
		return rec.generation == gen && rec.metadata == metadataFingerprint(observed)
	}
	return rec.resourceVersion == observed.GetResourceVersion()
}

var fingerprintSeed = maphash.MakeSeed()

// metadataFingerprint hashes an object's labels and annotations, without
// allocating and independently of map order.
func metadataFingerprint(obj *unstructured.Unstructured) uint64 {
	m, _ := obj.Object["metadata"].(map[string]interface{})
	return mapFingerprint(m["labels"], 0x9e3779b97f4a7c15) ^ mapFingerprint(m["annotations"], 0xc2b2ae3d27d4eb4f)
}

func mapFingerprint(v interface{}, mix uint64) uint64 {
	m, _ := v.(map[string]interface{})
	var sum uint64
	for k, val := range m {
		s, _ := val.(string)
		sum += (maphash.String(fingerprintSeed, k) ^ maphash.String(fingerprintSeed, s)*mix) * mix
	}
	return sum + uint64(len(m))
}
