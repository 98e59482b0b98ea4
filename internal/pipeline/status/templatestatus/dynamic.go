package templatestatus

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
)

// RBAC: a template's aggregated status goes through its status subresource
// (or an update of the whole object, see detector/templatecache), in the
// same groups the detector claims templates in.
// +kubebuilder:rbac:groups=core,resources=services/status;persistentvolumeclaims/status;persistentvolumes/status;pods/status;replicationcontrollers/status;resourcequotas/status;namespaces/status,verbs=update
// +kubebuilder:rbac:groups=apps;batch;autoscaling;policy;networking.k8s.io;discovery.k8s.io;storage.k8s.io;scheduling.k8s.io;node.k8s.io;apps.kruise.io;argoproj.io;batch.volcano.sh;flink.apache.org;helm.toolkit.fluxcd.io;kustomize.toolkit.fluxcd.io;source.toolkit.fluxcd.io;kubeflow.org;kyverno.io;ray.io;sparkoperator.k8s.io,resources=*/status,verbs=update

// Dynamic reads and writes templates with a dynamic client. It maps kinds
// to resources with a RESTMapper and learns from discovery, once per
// resource, whether the resource has a status subresource.
type Dynamic struct {
	client    dynamic.Interface
	mapper    meta.RESTMapper
	discovery discovery.DiscoveryInterface

	mu        sync.Mutex
	hasStatus map[schema.GroupVersionResource]bool
}

var (
	_ TemplateReader = (*Dynamic)(nil)
	_ StatusWriter   = (*Dynamic)(nil)
)

// NewDynamic returns a template reader and writer.
func NewDynamic(client dynamic.Interface, mapper meta.RESTMapper, disc discovery.DiscoveryInterface) *Dynamic {
	return &Dynamic{client: client, mapper: mapper, discovery: disc, hasStatus: map[schema.GroupVersionResource]bool{}}
}

// Get reads the template from the API server.
func (d *Dynamic) Get(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error) {
	res, _, err := d.resource(gvk, namespace)
	if err != nil {
		return nil, err
	}
	return res.Get(ctx, name, metav1.GetOptions{})
}

// UpdateStatus writes obj's status: through the status subresource when
// the resource has one, else with an update of the whole object.
func (d *Dynamic) UpdateStatus(ctx context.Context, obj *unstructured.Unstructured) error {
	res, gvr, err := d.resource(obj.GroupVersionKind(), obj.GetNamespace())
	if err != nil {
		return err
	}
	sub, err := d.statusSubresource(gvr)
	if err != nil {
		return err
	}
	if sub {
		_, err = res.UpdateStatus(ctx, obj, metav1.UpdateOptions{})
	} else {
		_, err = res.Update(ctx, obj, metav1.UpdateOptions{})
	}
	if apierrors.IsNotFound(err) {
		d.forget(gvr) // the resource's definition may have changed
	}
	return err
}

func (d *Dynamic) resource(gvk schema.GroupVersionKind, namespace string) (dynamic.ResourceInterface, schema.GroupVersionResource, error) {
	mapping, err := d.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, schema.GroupVersionResource{}, fmt.Errorf("map %s: %w", gvk, err)
	}
	if mapping.Scope.Name() == meta.RESTScopeNameRoot {
		return d.client.Resource(mapping.Resource), mapping.Resource, nil
	}
	return d.client.Resource(mapping.Resource).Namespace(namespace), mapping.Resource, nil
}

// statusSubresource reports whether gvr serves <resource>/status.
func (d *Dynamic) statusSubresource(gvr schema.GroupVersionResource) (bool, error) {
	d.mu.Lock()
	has, ok := d.hasStatus[gvr]
	d.mu.Unlock()
	if ok {
		return has, nil
	}
	list, err := d.discovery.ServerResourcesForGroupVersion(gvr.GroupVersion().String())
	if err != nil {
		return false, fmt.Errorf("discover %s: %w", gvr.GroupVersion(), err)
	}
	for _, r := range list.APIResources {
		if r.Name == gvr.Resource+"/status" {
			has = true
			break
		}
	}
	d.mu.Lock()
	d.hasStatus[gvr] = has
	d.mu.Unlock()
	return has, nil
}

func (d *Dynamic) forget(gvr schema.GroupVersionResource) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.hasStatus, gvr)
}
