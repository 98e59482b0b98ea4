package binding

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// Interpreter is what the binding controller needs of the resource
// interpreter; *resourceinterpreter.Interpreter satisfies it.
type Interpreter interface {
	HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) bool
	ReviseReplica(ctx context.Context, obj *unstructured.Unstructured, replicas int64) (*unstructured.Unstructured, error)
}

// TemplateReader reads resource templates. The returned object may be
// shared with a cache: callers must not modify it. A missing template is a
// NotFound API error.
type TemplateReader interface {
	Get(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error)
}

// DynamicTemplateReader reads templates straight from the API server.
type DynamicTemplateReader struct {
	client dynamic.Interface
	mapper meta.RESTMapper
}

// NewDynamicTemplateReader returns a TemplateReader over a dynamic client.
func NewDynamicTemplateReader(client dynamic.Interface, mapper meta.RESTMapper) *DynamicTemplateReader {
	return &DynamicTemplateReader{client: client, mapper: mapper}
}

// Get reads one template.
func (r *DynamicTemplateReader) Get(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error) {
	m, err := r.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", gvk, err)
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return r.client.Resource(m.Resource).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	}
	return r.client.Resource(m.Resource).Get(ctx, name, metav1.GetOptions{})
}

// CacheTemplateReader reads templates through a controller-runtime cache
// reader (e.g. the manager's cache, which starts an informer per kind on
// first use).
type CacheTemplateReader struct {
	Reader client.Reader
}

// Get reads one template; the result is a copy.
func (r CacheTemplateReader) Get(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	if err := r.Reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj); err != nil {
		return nil, err
	}
	return obj, nil
}
