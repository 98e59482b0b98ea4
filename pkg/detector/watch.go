package detector

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	"github.com/propel-mc/propel/pkg/names"
)

// discover registers an informer for every served resource that supports
// list, watch and delete and is not skipped. Partial discovery failures are
// tolerated: what was found is watched.
func (d *Detector) discover(ctx context.Context) {
	logger := log.FromContext(ctx)
	lists, err := d.discovery.ServerPreferredResources()
	if err != nil && len(lists) == 0 {
		logger.Error(err, "discovery failed")
		return
	}
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		logger.Error(err, "partial discovery failure")
	}
	added := 0
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") || !sets.New(r.Verbs...).HasAll("list", "watch", "delete") {
				continue
			}
			gvk := gv.WithKind(r.Kind)
			if d.skip.skipped(gvk) || d.isWatched(gvk) {
				continue
			}
			d.watch(gvk, watchedResource{gvr: gv.WithResource(r.Name), namespaced: r.Namespaced})
			added++
		}
	}
	if added > 0 {
		d.informers.Start(ctx.Done())
		logger.V(1).Info("watching new resources", "count", added)
	}
}

func (d *Detector) isWatched(gvk schema.GroupVersionKind) bool {
	d.mu.RLock()
	defer d.mu.RUnlock()
	_, ok := d.watched[gvk]
	return ok
}

func (d *Detector) resourceFor(gvk schema.GroupVersionKind) (watchedResource, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	r, ok := d.watched[gvk]
	return r, ok
}

func (d *Detector) watch(gvk schema.GroupVersionKind, r watchedResource) {
	d.mu.Lock()
	d.watched[gvk] = r
	d.mu.Unlock()
	inf := d.informers.ForResource(r.gvr).Informer()
	// Keep the cache lean: managedFields are never needed here.
	_ = inf.SetTransform(stripManagedFields)
	_, _ = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { d.onTemplate(obj, false) },
		UpdateFunc: d.onTemplateUpdate,
		DeleteFunc: d.onTemplateDelete,
	})
}

func stripManagedFields(obj interface{}) (interface{}, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		u.SetManagedFields(nil)
	}
	return obj, nil
}

func (d *Detector) keyOf(obj interface{}) (templateKey, bool) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return templateKey{}, false
	}
	gvk := u.GroupVersionKind()
	if d.nsFilter.ignored(gvk, u.GetNamespace(), u.GetName()) {
		return templateKey{}, false
	}
	return templateKey{gvk: gvk, namespace: u.GetNamespace(), name: u.GetName()}, true
}

func (d *Detector) onTemplate(obj interface{}, lazyChange bool) {
	if k, ok := d.keyOf(obj); ok {
		d.enqueue(k, lazyChange)
	}
}

// onTemplateUpdate ignores updates that change only status, managedFields
// or resourceVersion, so Propel's own status writes do not loop back.
func (d *Detector) onTemplateUpdate(oldObj, newObj interface{}) {
	o, ok1 := oldObj.(*unstructured.Unstructured)
	n, ok2 := newObj.(*unstructured.Unstructured)
	if !ok1 || !ok2 {
		return
	}
	if d.isOwnClaim(n) {
		return
	}
	oc, nc := comparable(o), comparable(n)
	if reflect.DeepEqual(oc.Object, nc.Object) {
		return
	}
	d.onTemplate(newObj, onlyKarmadaMetadataChanged(oc, nc))
}

// isOwnClaim reports (once) whether n is exactly the version the detector's
// own claim wrote.
func (d *Detector) isOwnClaim(n *unstructured.Unstructured) bool {
	k, ok := d.keyOf(n)
	if !ok {
		return false
	}
	rv, ok := d.ownClaims.Load(k)
	if !ok {
		return false
	}
	d.ownClaims.Delete(k)
	return rv == n.GetResourceVersion()
}

func (d *Detector) onTemplateDelete(obj interface{}) {
	if t, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if k, ok := d.keyOf(obj); ok {
		d.waiting.remove(k)
		d.ownClaims.Delete(k)
	}
}

func comparable(u *unstructured.Unstructured) *unstructured.Unstructured {
	c := u.DeepCopy()
	delete(c.Object, "status")
	c.SetManagedFields(nil)
	c.SetResourceVersion("")
	return c
}

// onlyKarmadaMetadataChanged reports whether the copies also equal each
// other without generation and every *.karmada.io label and annotation
// (except the user's skip-auto-propagation label).
func onlyKarmadaMetadataChanged(o, n *unstructured.Unstructured) bool {
	strip := func(u *unstructured.Unstructured) map[string]interface{} {
		c := u.DeepCopy()
		c.SetGeneration(0)
		c.SetLabels(withoutKarmadaKeys(c.GetLabels()))
		c.SetAnnotations(withoutKarmadaKeys(c.GetAnnotations()))
		return c.Object
	}
	return reflect.DeepEqual(strip(o), strip(n))
}

func withoutKarmadaKeys(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if !strings.Contains(k, ".karmada.io") || k == names.SkipAutoPropagationNamespaceLabel {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// watchPolicies keeps the policy indexes current from the manager's cache
// and waits until they are complete, so no template is matched against a
// partial view.
func (d *Detector) watchPolicies(ctx context.Context) error {
	ppSynced, err := indexPolicies(ctx, d.cache, &policyv1alpha1.PropagationPolicy{}, d.pps, fromPP)
	if err != nil {
		return err
	}
	cppSynced, err := indexPolicies(ctx, d.cache, &policyv1alpha1.ClusterPropagationPolicy{}, d.cpps, fromCPP)
	if err != nil {
		return err
	}
	if !toolscache.WaitForCacheSync(ctx.Done(), ppSynced, cppSynced) {
		return fmt.Errorf("policy caches did not sync")
	}
	return nil
}

func indexPolicies[T client.Object](ctx context.Context, informers cache.Informers, obj T, ix *policyIndex, convert func(T) *policy) (toolscache.InformerSynced, error) {
	inf, err := informers.GetInformer(ctx, obj)
	if err != nil {
		return nil, fmt.Errorf("watch %T: %w", obj, err)
	}
	upsert := func(o interface{}) {
		if p, ok := o.(T); ok {
			ix.upsert(convert(p))
		}
	}
	reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    upsert,
		UpdateFunc: func(_, o interface{}) { upsert(o) },
		DeleteFunc: func(o interface{}) {
			if t, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
				o = t.Obj
			}
			if p, ok := o.(T); ok {
				ix.remove(p.GetNamespace() + "/" + p.GetName())
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("watch %T: %w", obj, err)
	}
	return reg.HasSynced, nil
}

// templateMapping resolves a GVK the detector may not watch yet.
func (d *Detector) templateMapping(gvk schema.GroupVersionKind) (watchedResource, error) {
	if r, ok := d.resourceFor(gvk); ok {
		return r, nil
	}
	m, err := d.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return watchedResource{}, fmt.Errorf("resolve %s: %w", gvk, err)
	}
	return watchedResource{gvr: m.Resource, namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace}, nil
}
