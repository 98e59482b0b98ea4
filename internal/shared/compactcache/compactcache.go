// Package compactcache keeps Kubernetes objects in informer caches as
// compact JSON instead of decoded Unstructured maps. A decoded Unstructured
// costs several times its JSON size in maps, interfaces and strings; with
// thousands of objects per informer the caches are most of the controller
// manager's memory. An informer's transform turns each object into an
// Object (its JSON without managedFields, plus the little metadata the
// informer's key function and the owner's event handlers read without
// decoding); readers decode a private copy when they need the whole object.
//
// Packages embed Object in their own cached type to keep more fields
// decoded, so *T satisfies metav1.Object (the informer's key function needs
// it) through the embedded ObjectMeta.
package compactcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

// Object is an object in its cached form.
type Object struct {
	// ObjectMeta holds name, namespace and resourceVersion; an embedding
	// type may fill in more (and must say which).
	metav1.ObjectMeta
	raw []byte
}

// Compact encodes u, without its managedFields (which it removes from u),
// into an Object. The caller may go on reading u; the Object shares no
// state with it.
func Compact(u *unstructured.Unstructured) (Object, error) {
	if md, ok := u.Object["metadata"].(map[string]interface{}); ok {
		delete(md, "managedFields")
	}
	buf := getScratch()
	defer putScratch(buf)
	b, err := AppendJSON((*buf)[:0], u.Object)
	*buf = b
	if err != nil {
		return Object{}, fmt.Errorf("encode %s %s/%s for the cache: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return Object{
		ObjectMeta: metav1.ObjectMeta{Name: u.GetName(), Namespace: u.GetNamespace(), ResourceVersion: u.GetResourceVersion()},
		raw:        bytes.Clone(b), // exactly sized: it stays in the cache
	}, nil
}

// Decode returns a new Unstructured the caller owns.
func (o *Object) Decode() (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(o.raw); err != nil {
		return nil, fmt.Errorf("decode cached %s/%s: %w", o.Namespace, o.Name, err)
	}
	return u, nil
}

// Size is the length of the object's JSON.
func (o *Object) Size() int { return len(o.raw) }

// Unwrap returns what an informer delivers (an object or a deletion
// tombstone) as T, the cached type; ok is false for anything else.
func Unwrap[T any](obj interface{}) (t T, ok bool) {
	if tomb, isTomb := obj.(cache.DeletedFinalStateUnknown); isTomb {
		obj = tomb.Obj
	}
	t, ok = obj.(T)
	return t, ok
}

// Digest is a 128-bit digest (truncated SHA-256) of canonical JSON, for
// telling whether two cached objects differ in some part without decoding
// them. In AppendJSON and Hash a Digest encodes as its hex string, so
// digests can be combined.
type Digest [16]byte

// Hash returns the digest of the JSON encodings (AppendJSON) of values,
// one after the other. JSON values delimit themselves, so different
// sequences hash differently.
func Hash(values ...interface{}) (Digest, error) {
	buf := getScratch()
	defer putScratch(buf)
	b := (*buf)[:0]
	for _, v := range values {
		var err error
		if b, err = AppendJSON(b, v); err != nil {
			return Digest{}, err
		}
	}
	*buf = b
	sum := sha256.Sum256(b)
	return Digest(sum[:16]), nil
}

func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// scratch holds encoding buffers; one larger than maxScratch is dropped.
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

const maxScratch = 1 << 20

func getScratch() *[]byte { return scratch.Get().(*[]byte) }

func putScratch(b *[]byte) {
	if cap(*b) <= maxScratch {
		scratch.Put(b)
	}
}
