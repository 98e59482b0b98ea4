package dependencies

import (
	"encoding/json"

	"context"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/propel-mc/propel/internal/shared/names"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// ensureWatch starts (once) an informer on the dependency's resource whose
// events requeue the workloads that depend on the changed object, and waits
// for its cache.
func (d *Distributor) ensureWatch(ref configv1alpha1.DependentObjectReference) (schema.GroupVersionResource, error) {
	gvr, err := d.gvrOf(ref)
	if err != nil {
		return gvr, err
	}
	d.mu.Lock()
	if d.watched[gvr] {
		d.mu.Unlock()
		return gvr, nil
	}
	d.watched[gvr] = true
	stop := d.stop
	inf := d.informers.ForResource(gvr).Informer()
	_, _ = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    d.onDependency,
		UpdateFunc: func(_, o interface{}) { d.onDependency(o) },
		DeleteFunc: d.onDependency,
	})
	d.mu.Unlock()
	if stop != nil {
		d.informers.Start(stop)
		toolscache.WaitForCacheSync(stop, inf.HasSynced)
	}
	return gvr, nil
}

// onDependency requeues the independent bindings of the object's namespace
// whose recorded dependencies select it.
func (d *Distributor) onDependency(o interface{}) {
	if t, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
		o = t.Obj
	}
	obj, ok := o.(*unstructured.Unstructured)
	if !ok {
		return
	}
	list := &workv1alpha2.ResourceBindingList{}
	if err := d.Client.List(context.Background(), list, client.InNamespace(obj.GetNamespace())); err != nil {
		return
	}
	for i := range list.Items {
		rb := &list.Items[i]
		if rb.Spec.PropagateDeps && dependsOn(rb, obj) {
			d.events <- event.TypedGenericEvent[*workv1alpha2.ResourceBinding]{Object: rb}
		}
	}
}

// dependsOn reports whether rb's recorded dependencies select obj.
func dependsOn(rb *workv1alpha2.ResourceBinding, obj *unstructured.Unstructured) bool {
	var refs []configv1alpha1.DependentObjectReference
	if err := json.Unmarshal([]byte(rb.Annotations[names.BindingDependenciesAnnotation]), &refs); err != nil {
		return false
	}
	for _, r := range refs {
		if r.APIVersion != obj.GetAPIVersion() || r.Kind != obj.GetKind() {
			continue
		}
		if r.Namespace != "" && r.Namespace != obj.GetNamespace() {
			continue
		}
		if r.Name != "" {
			if r.Name == obj.GetName() {
				return true
			}
			continue
		}
		if sel, err := metav1.LabelSelectorAsSelector(r.LabelSelector); err == nil && sel.Matches(labels.Set(obj.GetLabels())) {
			return true
		}
	}
	return false
}
