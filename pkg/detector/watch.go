package detector

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	"github.com/propel-mc/propel/pkg/compactcache"
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
			if err := d.watch(gvk, watchedResource{gvr: gv.WithResource(r.Name), namespaced: r.Namespaced}); err != nil {
				logger.Error(err, "cannot watch templates")
				continue
			}
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

func (d *Detector) watch(gvk schema.GroupVersionKind, r watchedResource) error {
	inf := d.informers.ForResource(r.gvr).Informer()
	// The cache holds compact templates (cache.go), not decoded objects.
	if err := inf.SetTransform(templateTransform(gvk)); err != nil {
		return fmt.Errorf("watch %s: %w", gvk, err)
	}
	d.mu.Lock()
	d.watched[gvk] = r
	d.mu.Unlock()
	_, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { d.onTemplate(obj, false) },
		UpdateFunc: d.onTemplateUpdate,
		DeleteFunc: d.onTemplateDelete,
	})
	return err
}

// keyOf is the queue key of a cached template (or its tombstone).
func (d *Detector) keyOf(obj interface{}) (templateKey, bool) {
	t, ok := compactcache.Unwrap[*cachedTemplate](obj)
	if !ok {
		return templateKey{}, false
	}
	return d.templateKey(t.GroupVersionKind(), t.Namespace, t.Name)
}

// templateKey is the queue key of a template, unless the template is in a
// namespace the detector ignores.
func (d *Detector) templateKey(gvk schema.GroupVersionKind, namespace, name string) (templateKey, bool) {
	if d.nsFilter.ignored(gvk, namespace, name) {
		return templateKey{}, false
	}
	return templateKey{gvk: gvk, namespace: namespace, name: name}, true
}

func (d *Detector) onTemplate(obj interface{}, lazyChange bool) {
	if k, ok := d.keyOf(obj); ok {
		d.enqueue(k, lazyChange)
	}
}

// onTemplateUpdate ignores updates that change only status, managedFields
// or resourceVersion, so Propel's own status writes do not loop back. It
// compares the digests the transform computed, without decoding.
func (d *Detector) onTemplateUpdate(oldObj, newObj interface{}) {
	o, ok1 := oldObj.(*cachedTemplate)
	n, ok2 := newObj.(*cachedTemplate)
	if !ok1 || !ok2 {
		return
	}
	if d.isOwnClaim(n) {
		return
	}
	if o.spec == n.spec {
		return
	}
	d.onTemplate(newObj, o.user == n.user)
}

// isOwnClaim reports (once) whether n is exactly the version the detector's
// own claim wrote.
func (d *Detector) isOwnClaim(n *cachedTemplate) bool {
	k, ok := d.keyOf(n)
	if !ok {
		return false
	}
	rv, ok := d.ownClaims.Load(k)
	if !ok {
		return false
	}
	d.ownClaims.Delete(k)
	return rv == n.ResourceVersion
}

func (d *Detector) onTemplateDelete(obj interface{}) {
	if k, ok := d.keyOf(obj); ok {
		d.waiting.remove(k)
		d.ownClaims.Delete(k)
	}
}

// watchPolicies keeps the policy indexes current from the manager's cache
// and waits until they are complete, so no template is matched against a
// partial view.
func (d *Detector) watchPolicies(ctx context.Context) error {
	ppSynced, err := indexPolicies(ctx, d, &policyv1alpha1.PropagationPolicy{}, d.pps, fromPP)
	if err != nil {
		return err
	}
	cppSynced, err := indexPolicies(ctx, d, &policyv1alpha1.ClusterPropagationPolicy{}, d.cpps, fromCPP)
	if err != nil {
		return err
	}
	if !toolscache.WaitForCacheSync(ctx.Done(), ppSynced, cppSynced) {
		return fmt.Errorf("policy caches did not sync")
	}
	return nil
}

// indexPolicies keeps ix in line with the policies of obj's kind, waking
// the templates that waited for a policy's permanent id.
func indexPolicies[T client.Object](ctx context.Context, d *Detector, obj T, ix *policyIndex, convert func(T) *policy) (toolscache.InformerSynced, error) {
	informers := d.cache
	onID := func(p *policy) {
		for _, k := range d.idWaiters.idKnown(p.key()) {
			d.enqueue(k, false)
		}
	}
	onDelete := d.idWaiters.forget
	inf, err := informers.GetInformer(ctx, obj)
	if err != nil {
		return nil, fmt.Errorf("watch %T: %w", obj, err)
	}
	upsert := func(o interface{}) {
		if obj, ok := o.(T); ok {
			p := convert(obj)
			ix.upsert(p)
			if p.id != "" {
				onID(p)
			} else {
				d.idWaiters.idLost(p.key())
			}
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
				onDelete(p.GetNamespace() + "/" + p.GetName())
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
