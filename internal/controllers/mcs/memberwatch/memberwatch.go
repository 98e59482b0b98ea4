// Package memberwatch feeds the member-cluster objects the multi-cluster
// service collectors read (ServiceExports and EndpointSlices, whoever
// manages them) into a controller's queue as keys, and reads them back
// from the same unfiltered caches.
package memberwatch

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/propel-mc/propel/internal/shared/workcluster"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	mcsv1alpha1 "github.com/propel-mc/propel/pkg/apis/multicluster/v1alpha1"
)

// Kinds the collectors watch.
const (
	KindServiceExport = "ServiceExport"
	KindEndpointSlice = "EndpointSlice"
)

// Resources of the watched kinds.
var (
	ServiceExports = mcsv1alpha1.GroupVersion.WithResource("serviceexports")
	EndpointSlices = discoveryv1.SchemeGroupVersion.WithResource("endpointslices")
)

var kindOf = map[schema.GroupVersionResource]string{ServiceExports: KindServiceExport, EndpointSlices: KindEndpointSlice}

// Key names one member object.
type Key struct {
	Cluster, Kind, Namespace, Name string
}

func (k Key) String() string {
	return fmt.Sprintf("cluster %s %s %s/%s", k.Cluster, k.Kind, k.Namespace, k.Name)
}

// Watcher registers one controller's handler on member informers and
// hands the events to that controller's queue.
type Watcher struct {
	// Owner names the controller; its handler is registered once per
	// cluster and resource.
	Owner string
	// Informers hands out each cluster's informer set.
	Informers InformerSource
	// SyncTimeout bounds the wait for a new informer's initial list
	// (Karmada's --cluster-cache-sync-timeout).
	SyncTimeout time.Duration

	queue atomic.Pointer[workqueue.TypedRateLimitingInterface[Key]]
}

// Source is passed to the controller builder's WatchesRawSource; it only
// captures the queue (the handlers are registered by Caches).
func (w *Watcher) Source() source.TypedSource[Key] {
	return source.TypedFunc[Key](func(_ context.Context, q workqueue.TypedRateLimitingInterface[Key]) error {
		w.queue.Store(&q)
		return nil
	})
}

// Enqueue adds key to the controller's queue and reports whether it could:
// before the controller starts there is no queue, and the key is dropped
// (member events then need no queue: the Works the controller starts
// from cover them; other callers retry).
func (w *Watcher) Enqueue(key Key) bool {
	q := w.queue.Load()
	if q == nil {
		return false
	}
	(*q).Add(key)
	return true
}

func (w *Watcher) handler(cluster string, gvr schema.GroupVersionResource) cache.ResourceEventHandler {
	kind := kindOf[gvr]
	enqueue := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return
		}
		_ = w.Enqueue(Key{Cluster: cluster, Kind: kind, Namespace: u.GetNamespace(), Name: u.GetName()})
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { enqueue(obj) },
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*unstructured.Unstructured)
			n, ok2 := newObj.(*unstructured.Unstructured)
			if ok1 && ok2 && o.GetResourceVersion() == n.GetResourceVersion() {
				return
			}
			enqueue(newObj)
		},
		DeleteFunc: enqueue,
	}
}

// Caches are the synced member caches of one cluster.
type Caches struct {
	Cluster  string
	indexers map[schema.GroupVersionResource]cache.Indexer
}

// Caches registers the handler on cluster's informers of gvrs, starting
// them when needed, and waits for their initial lists.
func (w *Watcher) Caches(ctx context.Context, cluster *clusterv1alpha1.Cluster, gvrs ...schema.GroupVersionResource) (*Caches, error) {
	set, err := w.Informers.InformerSet(ctx, cluster)
	if err != nil {
		return nil, err
	}
	c := &Caches{Cluster: cluster.Name, indexers: map[schema.GroupVersionResource]cache.Indexer{}}
	informers := make([]cache.SharedIndexInformer, 0, len(gvrs))
	for _, gvr := range gvrs {
		inf, err := set.Informer(gvr, w.Owner, w.handler(cluster.Name, gvr))
		if err != nil {
			return nil, fmt.Errorf("cluster %s: %w", cluster.Name, err)
		}
		informers = append(informers, inf)
		c.indexers[gvr] = inf.GetIndexer()
	}
	if !set.WaitSynced(ctx, w.SyncTimeout, informers...) {
		return nil, fmt.Errorf("cluster %s: member caches of %v not synced within %s", cluster.Name, gvrs, w.SyncTimeout)
	}
	return c, nil
}

// ClusterCaches returns the synced caches of gvrs in cluster, or nil when
// the Cluster is gone, being deleted or not in Push mode (karmada-agent
// collects a Pull cluster's objects). A cluster that is not Ready is an
// error, so the key is retried.
func (w *Watcher) ClusterCaches(ctx context.Context, reader client.Reader, cluster string, gvrs ...schema.GroupVersionResource) (*Caches, error) {
	c := &clusterv1alpha1.Cluster{}
	if err := reader.Get(ctx, types.NamespacedName{Name: cluster}, c); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	if !workcluster.IsPush(c) || !c.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	if !workcluster.IsReady(c) {
		return nil, fmt.Errorf("cluster %s is not ready", cluster)
	}
	return w.Caches(ctx, c, gvrs...)
}

// Get returns the cached object, nil when absent.
func (c *Caches) Get(gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	idx := c.indexers[gvr]
	if idx == nil {
		return nil, fmt.Errorf("cluster %s: %s not watched", c.Cluster, gvr)
	}
	obj, ok, err := idx.GetByKey(namespace + "/" + name)
	if err != nil || !ok {
		return nil, err
	}
	u, _ := obj.(*unstructured.Unstructured)
	return u, nil
}

// List returns the cached objects of namespace that match selector.
func (c *Caches) List(gvr schema.GroupVersionResource, namespace string, selector labels.Selector) ([]*unstructured.Unstructured, error) {
	idx := c.indexers[gvr]
	if idx == nil {
		return nil, fmt.Errorf("cluster %s: %s not watched", c.Cluster, gvr)
	}
	objs, err := idx.ByIndex(cache.NamespaceIndex, namespace)
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, obj := range objs {
		if u, ok := obj.(*unstructured.Unstructured); ok && selector.Matches(labels.Set(u.GetLabels())) {
			out = append(out, u)
		}
	}
	return out, nil
}
