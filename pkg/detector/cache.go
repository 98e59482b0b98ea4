package detector

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/propel-mc/propel/pkg/compactcache"
	"github.com/propel-mc/propel/pkg/names"
)

// cachedTemplate is a resource template in the detector's informer caches
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
type cachedTemplate struct {
	compactcache.Object
	apiVersion, kind string
	// spec digests the template without status, managedFields and
	// resourceVersion: an update that keeps it (such as Propel's own status
	// write) is ignored.
	spec compactcache.Digest
	// user digests that without generation and Karmada's labels and
	// annotations (see withoutKarmadaKeys): an update that keeps it changed
	// only Karmada's metadata, which lazy activation does not act on.
	user compactcache.Digest
}

func (t *cachedTemplate) GetAPIVersion() string { return t.apiVersion }

func (t *cachedTemplate) GetKind() string { return t.kind }

func (t *cachedTemplate) GroupVersionKind() schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(t.apiVersion, t.kind)
}

// key is the template's queue key.
func (t *cachedTemplate) key() templateKey {
	return templateKey{gvk: t.GroupVersionKind(), namespace: t.Namespace, name: t.Name}
}

// templateTransform is the transform of the informer of gvk's templates.
// Templates of that kind share its apiVersion and kind strings.
func templateTransform(gvk schema.GroupVersionKind) toolscache.TransformFunc {
	apiVersion, kind := gvk.GroupVersion().String(), gvk.Kind
	return func(obj interface{}) (interface{}, error) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return obj, nil // already compact, or a tombstone of a compact template
		}
		t, err := compactTemplate(u)
		if err != nil {
			return nil, err
		}
		if t.apiVersion == apiVersion && t.kind == kind {
			t.apiVersion, t.kind = apiVersion, kind
		}
		return t, nil
	}
}

// compactTemplate turns u into its cached form. It uses u up: what the
// digests leave out is removed from it.
func compactTemplate(u *unstructured.Unstructured) (*cachedTemplate, error) {
	o, err := compactcache.Compact(u)
	if err != nil {
		return nil, err
	}
	t := &cachedTemplate{Object: o, apiVersion: u.GetAPIVersion(), kind: u.GetKind()}
	t.Labels = u.GetLabels()
	t.Annotations = karmadaAnnotations(u.GetAnnotations())
	t.DeletionTimestamp = u.GetDeletionTimestamp()
	if t.spec, t.user, err = templateDigests(u); err != nil {
		return nil, fmt.Errorf("digest %s %s/%s: %w", t.kind, t.Namespace, t.Name, err)
	}
	return t, nil
}

// templateDigests computes the spec and user digests of u (see
// cachedTemplate), removing from u what they leave out. Both share the
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

// cached returns the template from the informer cache: nil (and no error)
// when its kind is not watched or the cache does not hold it. r is its
// resource either way.
func (d *Detector) cached(key templateKey) (t *cachedTemplate, r watchedResource, err error) {
	r, err = d.templateMapping(key.gvk)
	if err != nil {
		return nil, r, err
	}
	if _, watched := d.resourceFor(key.gvk); !watched {
		return nil, r, nil
	}
	cacheKey := key.name
	if r.namespaced {
		cacheKey = key.namespace + "/" + key.name
	}
	item, exists, err := d.informers.ForResource(r.gvr).Informer().GetIndexer().GetByKey(cacheKey)
	if err != nil || !exists {
		return nil, r, nil
	}
	t, ok := item.(*cachedTemplate)
	if !ok {
		return nil, r, fmt.Errorf("cache of %s holds %T", key.gvk, item)
	}
	return t, r, nil
}

// lookupTemplate returns the template in its cached form: from the
// informer cache, else read from the API server and compacted. Callers
// decode it only when they need more than its metadata.
func (d *Detector) lookupTemplate(ctx context.Context, key templateKey) (*cachedTemplate, error) {
	t, r, err := d.cached(key)
	if err != nil || t != nil {
		return t, err
	}
	u, err := d.liveTemplate(ctx, key, r)
	if err != nil {
		return nil, err
	}
	return compactTemplate(u)
}

// getTemplate returns a copy of the template the caller owns: decoded from
// the informer cache, else read from the API server.
func (d *Detector) getTemplate(ctx context.Context, key templateKey) (*unstructured.Unstructured, error) {
	t, r, err := d.cached(key)
	if err != nil {
		return nil, err
	}
	if t != nil {
		return t.Decode()
	}
	return d.liveTemplate(ctx, key, r)
}

func (d *Detector) liveTemplate(ctx context.Context, key templateKey, r watchedResource) (*unstructured.Unstructured, error) {
	if r.namespaced {
		return d.dynamic.Resource(r.gvr).Namespace(key.namespace).Get(ctx, key.name, metav1.GetOptions{})
	}
	return d.dynamic.Resource(r.gvr).Get(ctx, key.name, metav1.GetOptions{})
}
