package templatecache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/compactcache"
)

// RBAC on the control plane (generated into config/deploy/karmada-apiserver
// by make generate). Templates of any kind are read: the cache watches every
// served, propagatable API. A claim (labels, annotations) is an update, and
// is granted only in the workload and configuration groups of Kubernetes
// and in those of the kinds the built-in interpreters know; other kinds are
// granted by an aggregated ClusterRole (config/deploy/README.md). No
// template is created or deleted.
// +kubebuilder:rbac:groups=*,resources=*,verbs=get;list;watch
// +kubebuilder:rbac:groups=core,resources=configmaps;secrets;services;serviceaccounts;persistentvolumeclaims;persistentvolumes;limitranges;resourcequotas;replicationcontrollers;pods;endpoints;podtemplates;namespaces,verbs=update
// +kubebuilder:rbac:groups=apps;batch;autoscaling;policy;networking.k8s.io;discovery.k8s.io;storage.k8s.io;scheduling.k8s.io;node.k8s.io;apps.kruise.io;argoproj.io;batch.volcano.sh;flink.apache.org;helm.toolkit.fluxcd.io;kustomize.toolkit.fluxcd.io;source.toolkit.fluxcd.io;kubeflow.org;kyverno.io;ray.io;sparkoperator.k8s.io;multicluster.x-k8s.io,resources=*,verbs=update

// Options configure the cache; zero values take Karmada's defaults.
type Options struct {
	// SkippedPropagatingAPIs is --skipped-propagating-apis.
	SkippedPropagatingAPIs string
	// SkippedPropagatingNamespaces is --skipped-propagating-namespaces
	// (default kube-.*).
	SkippedPropagatingNamespaces []string
	// ResyncPeriod of the template informers (default none).
	ResyncPeriod time.Duration
}

// Cache holds the template informers and reads and writes templates.
type Cache struct {
	dynamic   dynamic.Interface
	discovery discovery.DiscoveryInterface
	mapper    meta.RESTMapper
	skip      *skipList
	nsFilter  *namespaceFilter
	informers dynamicinformer.DynamicSharedInformerFactory

	mu sync.RWMutex
	// watched maps each watched GVK to its resource.
	watched map[schema.GroupVersionKind]Resource
}

// Resource is the API resource of a template kind.
type Resource struct {
	GVR        schema.GroupVersionResource
	Namespaced bool
}

// New builds an empty cache; Discover fills it.
func New(dyn dynamic.Interface, disc discovery.DiscoveryInterface, mapper meta.RESTMapper, opts Options) (*Cache, error) {
	if opts.SkippedPropagatingNamespaces == nil {
		opts.SkippedPropagatingNamespaces = []string{"kube-.*"}
	}
	skip, err := newSkipList(opts.SkippedPropagatingAPIs)
	if err != nil {
		return nil, err
	}
	nsFilter, err := newNamespaceFilter(opts.SkippedPropagatingNamespaces)
	if err != nil {
		return nil, err
	}
	return &Cache{
		dynamic: dyn, discovery: disc, mapper: mapper, skip: skip, nsFilter: nsFilter,
		informers: dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, opts.ResyncPeriod, "", nil),
		watched:   map[schema.GroupVersionKind]Resource{},
	}, nil
}

// Skipped reports whether templates of gvk are never propagated.
func (c *Cache) Skipped(gvk schema.GroupVersionKind) bool { return c.skip.skipped(gvk) }

// Ignored reports whether the template of gvk in namespace ns named name
// must never be propagated (reserved or user-skipped namespace).
func (c *Cache) Ignored(gvk schema.GroupVersionKind, ns, name string) bool {
	return c.nsFilter.ignored(gvk, ns, name)
}

// KeyOf is the key of a cached template (or its tombstone), unless the
// template is in a namespace the detector ignores.
func (c *Cache) KeyOf(obj interface{}) (Key, bool) {
	t, ok := compactcache.Unwrap[*Template](obj)
	if !ok {
		return Key{}, false
	}
	return c.KeyFor(t.GroupVersionKind(), t.Namespace, t.Name)
}

// KeyFor is the key of a template, unless it is in a namespace the
// detector ignores.
func (c *Cache) KeyFor(gvk schema.GroupVersionKind, namespace, name string) (Key, bool) {
	if c.nsFilter.ignored(gvk, namespace, name) {
		return Key{}, false
	}
	return Key{GVK: gvk, Namespace: namespace, Name: name}, true
}

// Discover creates an informer for every served resource that supports
// list, watch and delete and is neither skipped nor watched yet, calls
// onNew for each (before the informer starts, so its handlers see every
// template) and starts the new informers. A partial discovery (an
// aggregated API unavailable: ErrGroupDiscoveryFailed) still watches
// every group that was found; the failing group versions are logged and
// returned so that the caller retries them sooner than its period. A
// discovery that found nothing returns its error.
func (c *Cache) Discover(ctx context.Context, onNew func(gvk schema.GroupVersionKind, inf toolscache.SharedIndexInformer) error) error {
	logger := klog.FromContext(ctx)
	lists, err := c.discovery.ServerPreferredResources()
	if err != nil && len(lists) == 0 {
		logger.Error(err, "discovery of served APIs failed")
		return fmt.Errorf("discover served APIs: %w", err)
	}
	var failed error
	if err != nil {
		var groupErr *discovery.ErrGroupDiscoveryFailed
		if errors.As(err, &groupErr) {
			gvs := make([]string, 0, len(groupErr.Groups))
			for gv := range groupErr.Groups {
				gvs = append(gvs, gv.String())
			}
			slices.Sort(gvs)
			logger.Info("some API groups could not be discovered, watching the others and retrying", "groupVersions", gvs, "err", boundedtext.String(err.Error()))
		} else {
			logger.Error(err, "partial discovery failure, watching what was found")
		}
		failed = fmt.Errorf("discover served APIs: %w", err)
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
			if c.skip.skipped(gvk) || c.isWatched(gvk) {
				continue
			}
			inf, err := c.Watch(gvk, Resource{GVR: gv.WithResource(r.Name), Namespaced: r.Namespaced})
			if err == nil {
				err = onNew(gvk, inf)
			}
			if err != nil {
				logger.Error(err, "cannot watch templates", "kind", gvk.String())
				continue
			}
			added++
		}
	}
	if added > 0 {
		c.informers.Start(ctx.Done())
		logger.V(1).Info("watching new resources", "count", added)
	}
	return failed
}

// Watch creates (without starting) the informer of gvk's templates.
func (c *Cache) Watch(gvk schema.GroupVersionKind, r Resource) (toolscache.SharedIndexInformer, error) {
	inf := c.informers.ForResource(r.GVR).Informer()
	// The cache holds compact templates, not decoded objects.
	if err := inf.SetTransform(Transform(gvk)); err != nil {
		return nil, fmt.Errorf("watch %s: %w", gvk, err)
	}
	c.mu.Lock()
	c.watched[gvk] = r
	c.mu.Unlock()
	return inf, nil
}

func (c *Cache) isWatched(gvk schema.GroupVersionKind) bool {
	_, ok := c.resourceFor(gvk)
	return ok
}

func (c *Cache) resourceFor(gvk schema.GroupVersionKind) (Resource, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.watched[gvk]
	return r, ok
}

// Each calls fn with every cached template of every watched kind.
func (c *Cache) Each(fn func(t *Template)) {
	c.mu.RLock()
	resources := make([]Resource, 0, len(c.watched))
	for _, r := range c.watched {
		resources = append(resources, r)
	}
	c.mu.RUnlock()
	for _, r := range resources {
		for _, o := range c.informers.ForResource(r.GVR).Informer().GetStore().List() {
			if t, ok := o.(*Template); ok {
				fn(t)
			}
		}
	}
}

// Mapping resolves a GVK the cache may not watch yet.
func (c *Cache) Mapping(gvk schema.GroupVersionKind) (Resource, error) {
	if r, ok := c.resourceFor(gvk); ok {
		return r, nil
	}
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return Resource{}, fmt.Errorf("resolve %s: %w", gvk, err)
	}
	return Resource{GVR: m.Resource, Namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace}, nil
}

// cached returns the template from the informer cache: nil (and no error)
// when its kind is not watched or the cache does not hold it. r is its
// resource either way.
func (c *Cache) cached(key Key) (t *Template, r Resource, err error) {
	r, err = c.Mapping(key.GVK)
	if err != nil {
		return nil, r, err
	}
	if !c.isWatched(key.GVK) {
		return nil, r, nil
	}
	cacheKey := key.Name
	if r.Namespaced {
		cacheKey = key.Namespace + "/" + key.Name
	}
	item, exists, err := c.informers.ForResource(r.GVR).Informer().GetIndexer().GetByKey(cacheKey)
	if err != nil || !exists {
		return nil, r, nil
	}
	t, ok := item.(*Template)
	if !ok {
		return nil, r, fmt.Errorf("cache of %s holds %T", key.GVK, item)
	}
	return t, r, nil
}

// Lookup returns the template in its cached form: from the informer cache,
// else read from the API server and compacted. Callers decode it only when
// they need more than its metadata.
func (c *Cache) Lookup(ctx context.Context, key Key) (*Template, error) {
	t, r, err := c.cached(key)
	if err != nil || t != nil {
		return t, err
	}
	u, err := c.live(ctx, key, r)
	if err != nil {
		return nil, err
	}
	return Compact(u)
}

// Get returns a copy of the template the caller owns: decoded from the
// informer cache, else read from the API server.
func (c *Cache) Get(ctx context.Context, key Key) (*unstructured.Unstructured, error) {
	t, r, err := c.cached(key)
	if err != nil {
		return nil, err
	}
	if t != nil {
		return t.Decode()
	}
	return c.live(ctx, key, r)
}

func (c *Cache) live(ctx context.Context, key Key, r Resource) (*unstructured.Unstructured, error) {
	if r.Namespaced {
		return c.dynamic.Resource(r.GVR).Namespace(key.Namespace).Get(ctx, key.Name, metav1.GetOptions{})
	}
	return c.dynamic.Resource(r.GVR).Get(ctx, key.Name, metav1.GetOptions{})
}

// Update writes obj (a full update) and returns the server's copy.
func (c *Cache) Update(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	r, err := c.Mapping(obj.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	if r.Namespaced {
		return c.dynamic.Resource(r.GVR).Namespace(obj.GetNamespace()).Update(ctx, obj, metav1.UpdateOptions{})
	}
	return c.dynamic.Resource(r.GVR).Update(ctx, obj, metav1.UpdateOptions{})
}

// List lists the templates of gvk matching the label selector from the
// API server (namespace "" for all or a cluster-scoped kind).
func (c *Cache) List(ctx context.Context, r Resource, namespace, labelSelector string) (*unstructured.UnstructuredList, error) {
	opts := metav1.ListOptions{LabelSelector: labelSelector}
	if r.Namespaced {
		return c.dynamic.Resource(r.GVR).Namespace(namespace).List(ctx, opts)
	}
	return c.dynamic.Resource(r.GVR).List(ctx, opts)
}
