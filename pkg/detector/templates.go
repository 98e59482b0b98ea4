package detector

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Templates reads resource templates through the detector's informers
// (falling back to the API server), so other controllers need no informers
// of their own for templates.
type Templates struct{ d *Detector }

// Templates returns the detector's template reader.
func (d *Detector) Templates() Templates { return Templates{d: d} }

// Get returns a copy of the template, which the caller may modify.
func (t Templates) Get(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error) {
	return t.d.getTemplate(ctx, templateKey{gvk: gvk, namespace: namespace, name: name})
}
