package templatecache

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/propel-mc/propel/internal/shared/compactcache"
	"github.com/propel-mc/propel/internal/shared/names"
)

// Template is a resource template in the detector's informer caches
// (see package compactcache): the template as JSON without managedFields,
// plus what the event handlers, claim checks and policy matching read
// without decoding. Templates no policy selects are never decoded on the
// event and reconcile paths.
//
// Its ObjectMeta holds name, namespace, resourceVersion, labels,
// deletionTimestamp and, of the annotations, only Karmada's (keys
// containing "karmada.io"): others, such as kubectl's
// last-applied-configuration, can be as large as the template itself.
// It is shared with the informer: read it, never modify it (Decode gives a
// private copy).
type Template struct {
	compactcache.Object
	apiVersion, kind string
	// Spec digests the template without status, managedFields and
	// resourceVersion: an update that keeps it (such as Propel's own status
	// write) is ignored.
	Spec compactcache.Digest
	// User digests that without generation and Karmada's labels and
	// annotations (see withoutKarmadaKeys): an update that keeps it changed
	// only Karmada's metadata, which lazy activation does not act on.
	User compactcache.Digest
}

func (t *Template) GetAPIVersion() string { return t.apiVersion }

func (t *Template) GetKind() string { return t.kind }

func (t *Template) GroupVersionKind() schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(t.apiVersion, t.kind)
}

// Key is the template's key.
func (t *Template) Key() Key {
	return Key{GVK: t.GroupVersionKind(), Namespace: t.Namespace, Name: t.Name}
}

// Transform is the transform of the informer of gvk's templates.
// Templates of that kind share its apiVersion and kind strings.
func Transform(gvk schema.GroupVersionKind) toolscache.TransformFunc {
	apiVersion, kind := gvk.GroupVersion().String(), gvk.Kind
	return func(obj interface{}) (interface{}, error) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return obj, nil // already compact, or a tombstone of a compact template
		}
		t, err := Compact(u)
		if err != nil {
			return nil, err
		}
		if t.apiVersion == apiVersion && t.kind == kind {
			t.apiVersion, t.kind = apiVersion, kind
		}
		return t, nil
	}
}

// Compact turns u into its cached form. It uses u up: what the
// digests leave out is removed from it.
func Compact(u *unstructured.Unstructured) (*Template, error) {
	o, err := compactcache.Compact(u)
	if err != nil {
		return nil, err
	}
	t := &Template{Object: o, apiVersion: u.GetAPIVersion(), kind: u.GetKind()}
	t.Labels = u.GetLabels()
	t.Annotations = karmadaAnnotations(u.GetAnnotations())
	t.DeletionTimestamp = u.GetDeletionTimestamp()
	if t.Spec, t.User, err = templateDigests(u); err != nil {
		return nil, fmt.Errorf("digest %s %s/%s: %w", t.kind, t.Namespace, t.Name, err)
	}
	return t, nil
}

// templateDigests computes the spec and user digests of u (see
// Template), removing from u what they leave out. Both share the
// digest of what is left once status, resourceVersion, generation, labels
// and annotations are gone; spec adds generation, labels and annotations,
// user the labels and annotations without Karmada's keys.
func templateDigests(u *unstructured.Unstructured) (spec, user compactcache.Digest, err error) {
	delete(u.Object, "status")
	md, _ := u.Object["metadata"].(map[string]interface{})
	generation, labels, annotations := md["generation"], md["labels"], md["annotations"]
	for _, k := range []string{"resourceVersion", "generation", "labels", "annotations"} {
		delete(md, k)
	}
	rest, err := compactcache.Hash(u.Object)
	if err != nil {
		return spec, user, err
	}
	if spec, err = compactcache.Hash(rest, generation, labels, annotations); err != nil {
		return spec, user, err
	}
	user, err = compactcache.Hash(rest, withoutKarmadaKeys(labels), withoutKarmadaKeys(annotations))
	return spec, user, err
}

// withoutKarmadaKeys drops from a labels or annotations value every key
// containing ".karmada.io", except the user's skip-auto-propagation label;
// nil when nothing is left (as if the field were absent). Values that are
// not maps are returned as they are.
func withoutKarmadaKeys(v interface{}) interface{} {
	m, ok := v.(map[string]interface{})
	if !ok {
		return v
	}
	var out map[string]interface{}
	for k, val := range m {
		if !strings.Contains(k, ".karmada.io") || k == names.SkipAutoPropagationNamespaceLabel {
			if out == nil {
				out = make(map[string]interface{}, len(m))
			}
			out[k] = val
		}
	}
	if out == nil {
		return nil
	}
	return out
}

// karmadaAnnotations keeps the annotations whose key contains "karmada.io".
func karmadaAnnotations(a map[string]string) map[string]string {
	var out map[string]string
	for k, v := range a {
		if strings.Contains(k, "karmada.io") {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}
