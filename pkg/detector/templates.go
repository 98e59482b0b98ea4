package detector

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/pkg/names"
)

// Templates reads resource templates through the detector's informers
// (falling back to the API server), so other controllers need no informers
// of their own for templates.
type Templates struct{ d *Detector }

// Templates returns the detector's template reader.
func (d *Detector) Templates() Templates { return Templates{d: d} }

// Get returns a copy of the template, which the caller may modify: decoded
// from the cache, else read from the API server.
func (t Templates) Get(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error) {
	return t.d.getTemplate(ctx, templateKey{gvk: gvk, namespace: namespace, name: name})
}

// RequeueClaimed reconciles every claimed template again. It is called when
// the resource interpreter's configuration changes: a template bound while
// no webhook or customization knew its kind must get its replicas
// re-interpreted, without waiting for the template itself to change.
func (d *Detector) RequeueClaimed() {
	d.mu.RLock()
	resources := make([]watchedResource, 0, len(d.watched))
	for _, r := range d.watched {
		resources = append(resources, r)
	}
	d.mu.RUnlock()
	for _, r := range resources {
		for _, o := range d.informers.ForResource(r.gvr).Informer().GetStore().List() {
			t, ok := o.(*cachedTemplate)
			if !ok || (t.Labels[names.PropagationPolicyPermanentIDLabel] == "" && t.Labels[names.ClusterPropagationPolicyPermanentIDLabel] == "") {
				continue
			}
			if k, ok := d.keyOf(t); ok {
				d.enqueue(k, false)
			}
		}
	}
}
