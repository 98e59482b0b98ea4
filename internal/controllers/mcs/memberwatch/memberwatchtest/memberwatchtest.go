// Package memberwatchtest serves member informers over fixed objects,
// through client-go's fake dynamic client, so that the collectors'
// decisions are tested without a member API server.
package memberwatchtest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	fakedynamic "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/propel-mc/propel/internal/controllers/mcs/memberwatch"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// Members is a memberwatch.InformerSource over fixed member objects per
// cluster. Its informers stop when the test ends.
type Members struct {
	ctx     context.Context
	objects map[string][]*unstructured.Unstructured

	mu   sync.Mutex
	sets map[string]*set
}

var _ memberwatch.InformerSource = (*Members)(nil)

// New returns the source whose cluster c holds objects[c] (ServiceExports
// and EndpointSlices).
func New(t testing.TB, objects map[string][]*unstructured.Unstructured) *Members {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return &Members{ctx: ctx, objects: objects, sets: map[string]*set{}}
}

// InformerSet returns cluster's informer set, listing the fixed objects.
func (m *Members) InformerSet(_ context.Context, cluster *clusterv1alpha1.Cluster) (memberwatch.InformerSet, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.sets[cluster.Name]
	if s == nil {
		objs := make([]runtime.Object, 0, len(m.objects[cluster.Name]))
		for _, o := range m.objects[cluster.Name] {
			objs = append(objs, o.DeepCopy())
		}
		listKinds := map[schema.GroupVersionResource]string{
			memberwatch.ServiceExports: memberwatch.KindServiceExport + "List",
			memberwatch.EndpointSlices: memberwatch.KindEndpointSlice + "List",
		}
		s = &set{ctx: m.ctx, dynamic: fakedynamic.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, objs...),
			informers: map[schema.GroupVersionResource]cache.SharedIndexInformer{}}
		m.sets[cluster.Name] = s
	}
	return s, nil
}

// Watched returns the resources whose informers cluster's set started.
func (m *Members) Watched(cluster string) []schema.GroupVersionResource {
	m.mu.Lock()
	s := m.sets[cluster]
	m.mu.Unlock()
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Collect(maps.Keys(s.informers))
}

type set struct {
	ctx     context.Context
	dynamic dynamic.Interface

	mu        sync.Mutex
	informers map[schema.GroupVersionResource]cache.SharedIndexInformer
}

func (s *set) Informer(gvr schema.GroupVersionResource, _ string, h cache.ResourceEventHandler) (cache.SharedIndexInformer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	inf := s.informers[gvr]
	if inf == nil {
		inf = dynamicinformer.NewFilteredDynamicInformer(s.dynamic, gvr, "", 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, nil).Informer()
		if h != nil {
			if _, err := inf.AddEventHandler(h); err != nil {
				return nil, fmt.Errorf("watch %s: %w", gvr, err)
			}
		}
		s.informers[gvr] = inf
		go inf.Run(s.ctx.Done())
	}
	return inf, nil
}

func (s *set) WaitSynced(ctx context.Context, timeout time.Duration, informers ...cache.SharedIndexInformer) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	synced := make([]cache.InformerSynced, 0, len(informers))
	for _, inf := range informers {
		synced = append(synced, inf.HasSynced)
	}
	return cache.WaitForCacheSync(ctx.Done(), synced...)
}
