package membercluster

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// WatchedObjects is the set of unfiltered informers of one member cluster:
// it caches every object of the resources controllers ask for, not only
// the ones Propel manages, for the controllers that read what the member
// itself runs (the EndpointSlices and ServiceExports of multi-cluster
// services). A handler is registered once per owner and resource, and is
// carried over when the set is rebuilt for a new connection.
type WatchedObjects struct {
	key     string
	dynamic dynamic.Interface
	ctx     context.Context
	cancel  context.CancelFunc

	mu        sync.Mutex
	informers map[schema.GroupVersionResource]cache.SharedIndexInformer
	handlers  map[schema.GroupVersionResource]map[string]cache.ResourceEventHandler
}

// Watched returns the unfiltered informer set of cluster, starting it with
// m's config on first use and rebuilding it (with the same resources and
// handlers) when the connection changes.
func (i *Informers) Watched(cluster *clusterv1alpha1.Cluster, m *Member) (*WatchedObjects, error) {
	key := connectionKey(cluster, m.Config)
	i.mu.Lock()
	defer i.mu.Unlock()
	old := i.watched[cluster.Name]
	if old != nil && old.key == key {
		return old, nil
	}
	w, err := newWatchedObjects(key, m.Config)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: watched-object informers: %w", cluster.Name, err)
	}
	i.watched[cluster.Name] = w
	if old != nil {
		old.stop()
		old.mu.Lock()
		handlers := old.handlers
		old.mu.Unlock()
		for gvr, byOwner := range handlers {
			for owner, h := range byOwner {
				if _, err := w.Informer(gvr, owner, h); err != nil {
					return nil, fmt.Errorf("cluster %s: rewatch %s: %w", cluster.Name, gvr, err)
				}
			}
		}
	}
	return w, nil
}

// LookupWatched returns the running unfiltered informer set of cluster, if
// any.
func (i *Informers) LookupWatched(cluster string) *WatchedObjects {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.watched[cluster]
}

func newWatchedObjects(key string, cfg *rest.Config) (*WatchedObjects, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = 0 // watches are long requests; the reflector bounds them itself
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &WatchedObjects{
		key: key, dynamic: dyn, ctx: ctx, cancel: cancel,
		informers: map[schema.GroupVersionResource]cache.SharedIndexInformer{},
		handlers:  map[schema.GroupVersionResource]map[string]cache.ResourceEventHandler{},
	}, nil
}

// Informer returns the running informer of gvr, starting it on first use,
// with h registered for owner unless owner registered a handler for gvr
// already (h may be nil: a reader that only lists).
func (w *WatchedObjects) Informer(gvr schema.GroupVersionResource, owner string, h cache.ResourceEventHandler) (cache.SharedIndexInformer, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ctx.Err() != nil {
		return nil, fmt.Errorf("watch %s: informers stopped", gvr)
	}
	inf := w.informers[gvr]
	if inf == nil {
		inf = dynamicinformer.NewFilteredDynamicInformer(w.dynamic, gvr, "", 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, nil).Informer()
		if err := inf.SetTransform(stripManagedFields); err != nil {
			return nil, err
		}
		w.informers[gvr] = inf
		go inf.Run(w.ctx.Done())
	}
	if h != nil {
		if w.handlers[gvr] == nil {
			w.handlers[gvr] = map[string]cache.ResourceEventHandler{}
		}
		if _, done := w.handlers[gvr][owner]; !done {
			if _, err := inf.AddEventHandler(h); err != nil {
				return nil, err
			}
			w.handlers[gvr][owner] = h
		}
	}
	return inf, nil
}

// WaitSynced waits up to timeout (Karmada's --cluster-cache-sync-timeout)
// for the initial list of each informer.
func (w *WatchedObjects) WaitSynced(ctx context.Context, timeout time.Duration, informers ...cache.SharedIndexInformer) bool {
	synced := make([]cache.InformerSynced, 0, len(informers))
	all := true
	for _, inf := range informers {
		synced = append(synced, inf.HasSynced)
		all = all && inf.HasSynced()
	}
	if all {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-w.ctx.Done():
		}
		close(stop)
	}()
	return cache.WaitForCacheSync(stop, synced...)
}

// Stopped tells whether the set was stopped (its cluster went away or its
// connection changed); a reader holding it should ask for the current one.
func (w *WatchedObjects) Stopped() bool { return w.ctx.Err() != nil }

func (w *WatchedObjects) stop() { w.cancel() }

// stripManagedFields drops managedFields, which no reader of these caches
// needs and which often outweighs the rest of the object.
func stripManagedFields(obj any) (any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		u.SetManagedFields(nil)
	}
	return obj, nil
}
