package membercluster

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// compactObject is the form a member object takes in the informer caches:
// the object as JSON, plus the few fields the informer (its key) and the
// event routing (the owning Work) read without decoding. A decoded
// Unstructured costs several times its JSON size in maps and strings, and
// with thousands of propagated objects per member the caches are most of
// the controller manager's memory. Readers decode a private copy.
type compactObject struct {
	// ObjectMeta holds only name, namespace and resourceVersion.
	metav1.ObjectMeta
	// work is the owning Work, valid when owned.
	work  types.NamespacedName
	owned bool
	raw   []byte
}

// compact is the informers' transform: it drops managedFields (never read)
// and replaces the decoded object by its compact form.
func compact(obj interface{}) (interface{}, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil // already compact, or a tombstone of a compact object
	}
	unstructured.RemoveNestedField(u.Object, "metadata", "managedFields")
	raw, err := u.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encode %s %s/%s for the cache: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	work, owned := OwningWork(u)
	return &compactObject{
		ObjectMeta: metav1.ObjectMeta{Name: u.GetName(), Namespace: u.GetNamespace(), ResourceVersion: u.GetResourceVersion()},
		work:       work, owned: owned, raw: raw,
	}, nil
}

// decode returns a new Unstructured the caller owns.
func (c *compactObject) decode() (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(c.raw); err != nil {
		return nil, fmt.Errorf("decode cached %s/%s: %w", c.Namespace, c.Name, err)
	}
	return u, nil
}

// cachedObject unwraps what an informer delivers (object or tombstone)
// into the compact form, nil for anything else.
func cachedObject(obj interface{}) *compactObject {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	c, _ := obj.(*compactObject)
	return c
}
