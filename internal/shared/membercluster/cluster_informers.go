package membercluster

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// ClusterInformers is the informer set of one member cluster, built from
// one set of clients. It maps kinds to resources with the member's own
// discovery, so a kind the member does not serve is an error of that
// member only.
type ClusterInformers struct {
	member *Member
	opts   InformerOptions
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	mapper   meta.RESTMapper
	handlers []EventHandler
	watched  map[schema.GroupVersionKind]*watchedKind
}

type watchedKind struct {
	mapping  *meta.RESTMapping
	informer cache.SharedIndexInformer
}

func newClusterInformers(m *Member, opts InformerOptions, handlers []EventHandler) *ClusterInformers {
	ctx, cancel := context.WithCancel(context.Background())
	return &ClusterInformers{
		member: m, opts: opts, ctx: ctx, cancel: cancel,
		handlers: append([]EventHandler(nil), handlers...),
		watched:  map[schema.GroupVersionKind]*watchedKind{},
	}
}

// Member returns the clients the set was built from.
func (c *ClusterInformers) Member() *Member { return c.member }

// Cluster is the member cluster's name.
func (c *ClusterInformers) Cluster() string { return c.member.Name }

// Mapping resolves gvk to its resource in the member cluster.
func (c *ClusterInformers) Mapping(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	c.mu.Lock()
	if w := c.watched[gvk]; w != nil {
		c.mu.Unlock()
		return w.mapping, nil
	}
	mapper, err := c.restMapper()
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: map %s: %w", c.Cluster(), gvk, err)
	}
	return mapping, nil
}

// restMapper is built lazily; it discovers one API group at a time. Callers
// hold c.mu.
func (c *ClusterInformers) restMapper() (meta.RESTMapper, error) {
	if c.mapper != nil {
		return c.mapper, nil
	}
	httpClient, err := rest.HTTPClientFor(c.member.Config)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: http client: %w", c.Cluster(), err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(c.member.Config, httpClient)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: rest mapper: %w", c.Cluster(), err)
	}
	c.mapper = mapper
	return mapper, nil
}

// Resource returns the dynamic client of gvk's resource in namespace.
func (c *ClusterInformers) Resource(gvk schema.GroupVersionKind, namespace string) (dynamic.ResourceInterface, error) {
	mapping, err := c.Mapping(gvk)
	if err != nil {
		return nil, err
	}
	if mapping.Scope.Name() == meta.RESTScopeNameRoot {
		return c.member.Dynamic.Resource(mapping.Resource), nil
	}
	return c.member.Dynamic.Resource(mapping.Resource).Namespace(namespace), nil
}

// Watch starts the informer of gvk unless it runs already. It does not
// wait for the informer to sync.
func (c *ClusterInformers) Watch(gvk schema.GroupVersionKind) error {
	c.mu.Lock()
	_, ok := c.watched[gvk]
	c.mu.Unlock()
	if ok {
		return nil
	}
	mapping, err := c.Mapping(gvk)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.watched[gvk]; ok || c.ctx.Err() != nil {
		return nil
	}
	w := &watchedKind{mapping: mapping, informer: c.newInformer(mapping)}
	if len(c.handlers) > 0 {
		hs := append([]EventHandler(nil), c.handlers...)
		if _, err := w.informer.AddEventHandler(routeTo(hs, c.Cluster(), gvk)); err != nil {
			return fmt.Errorf("cluster %s: watch %s: %w", c.Cluster(), gvk, err)
		}
	}
	c.watched[gvk] = w
	go w.informer.RunWithContext(c.ctx)
	return nil
}

func (c *ClusterInformers) newInformer(mapping *meta.RESTMapping) cache.SharedIndexInformer {
	selector := c.opts.LabelSelector
	inf := dynamicinformer.NewFilteredDynamicInformer(c.member.Dynamic, mapping.Resource, metav1.NamespaceAll,
		c.opts.Resync, cache.Indexers{}, func(o *metav1.ListOptions) { o.LabelSelector = selector }).Informer()
	_ = inf.SetTransform(compact) // fails only once started
	return inf
}

// Cached returns a copy of gvk ns/name from the informer cache, which the
// caller owns. synced is false when the kind is not watched or its
// informer has not listed yet: the caller must then read the API. With
// synced true, a nil object means the cache has no such (managed) object.
func (c *ClusterInformers) Cached(gvk schema.GroupVersionKind, namespace, name string) (obj *unstructured.Unstructured, synced bool, err error) {
	c.mu.Lock()
	w := c.watched[gvk]
	c.mu.Unlock()
	if w == nil || !w.informer.HasSynced() {
		return nil, false, nil
	}
	key := name
	if namespace != "" && w.mapping.Scope.Name() != meta.RESTScopeNameRoot {
		key = namespace + "/" + name
	}
	item, exists, err := w.informer.GetIndexer().GetByKey(key)
	if err != nil || !exists {
		return nil, true, err
	}
	co := cachedObject(item)
	if co == nil {
		return nil, true, fmt.Errorf("cluster %s: cache of %s holds %T", c.Cluster(), gvk, item)
	}
	u, err := co.Decode()
	if err != nil {
		return nil, true, fmt.Errorf("cluster %s: %s: %w", c.Cluster(), gvk, err)
	}
	return u, true, nil
}

// Live reads gvk ns/name from the member API server.
func (c *ClusterInformers) Live(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error) {
	res, err := c.Resource(gvk, namespace)
	if err != nil {
		return nil, err
	}
	return res.Get(ctx, name, metav1.GetOptions{})
}

func (c *ClusterInformers) addHandler(h EventHandler) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handlers = append(c.handlers, h)
	for gvk, w := range c.watched {
		_, _ = w.informer.AddEventHandler(routeTo([]EventHandler{h}, c.Cluster(), gvk))
	}
}

func (c *ClusterInformers) kinds() []schema.GroupVersionKind {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]schema.GroupVersionKind, 0, len(c.watched))
	for gvk := range c.watched {
		out = append(out, gvk)
	}
	return out
}

// stop ends every informer of the set; later Watch calls are no-ops.
func (c *ClusterInformers) stop() { c.cancel() }
