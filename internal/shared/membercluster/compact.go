package membercluster

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/propel-mc/propel/internal/shared/compactcache"
)

// compactObject is the form a member object takes in the informer caches
// (see package compactcache): the object as JSON, plus name, namespace and
// resourceVersion (for the informer's key) and the owning Work (for the
// event routing), read without decoding. With thousands of propagated
// objects per member the caches would otherwise be most of the controller
// manager's memory. Readers decode a private copy.
type compactObject struct {
	compactcache.Object
	// work is the owning Work, valid when owned.
	work  types.NamespacedName
	owned bool
}

// compact is the informers' transform: it drops managedFields (never read)
// and replaces the decoded object by its compact form.
func compact(obj interface{}) (interface{}, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil // already compact, or a tombstone of a compact object
	}
	o, err := compactcache.Compact(u)
	if err != nil {
		return nil, err
	}
	work, owned := OwningWork(u)
	return &compactObject{Object: o, work: work, owned: owned}, nil
}

// cachedObject unwraps what an informer delivers (object or tombstone)
// into the compact form, nil for anything else.
func cachedObject(obj interface{}) *compactObject {
	c, _ := compactcache.Unwrap[*compactObject](obj)
	return c
}
