package membercluster

import (
	"context"
	"sync"
	"time"

	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// ClientSource hands out the clients of a member cluster; *Clients is one.
type ClientSource interface {
	ForCluster(ctx context.Context, cluster *clusterv1alpha1.Cluster) (*Member, error)
}

var _ ClientSource = (*Clients)(nil)

// InformerOptions tune the member informers.
type InformerOptions struct {
	// Resync of the member informers; 0 (Karmada's) means none.
	Resync time.Duration
	// LabelSelector limits what the informers cache. The default,
	// "karmada.io/managed=true", caches only the objects Propel manages, so
	// a cache miss means "absent or not ours", never "absent".
	LabelSelector string
}

// Informers owns every informer Propel runs on member clusters:
//
//   - one dynamic informer set per member cluster, for the
//     GroupVersionKinds that Works reference only. A set is created on first
//     use and rebuilt when the cluster's clients change. Every informer
//     strips managedFields and hands changes of objects that carry a Work
//     back-reference to the registered handlers;
//   - one Node and Pod informer pair per member cluster (NodesAndPods), for
//     cluster status, trimmed by the transforms it passes and restarted only
//     when the cluster's connection changes;
//   - one unfiltered informer set per member cluster (Watched), for the
//     controllers that read objects Propel does not manage (multi-cluster
//     services), restarted with the same resources and handlers when the
//     connection changes.
//
// Both are stopped when the Cluster is gone or turns to Pull mode, the
// member-object set already when the Cluster's deletion starts
// (SetupWithManager), and everything when the manager stops.
type Informers struct {
	opts     InformerOptions
	mu       sync.Mutex
	handlers []EventHandler
	clusters map[string]*ClusterInformers
	nodePods map[string]*NodePodInformers
	watched  map[string]*WatchedObjects
}

// NewInformers returns an empty informer registry.
func NewInformers(opts InformerOptions) *Informers {
	if opts.LabelSelector == "" {
		opts.LabelSelector = names.ManagedLabel + "=" + names.TrueValue
	}
	return &Informers{opts: opts, clusters: map[string]*ClusterInformers{}, nodePods: map[string]*NodePodInformers{}, watched: map[string]*WatchedObjects{}}
}

// AddHandler registers h for the events of every member informer, existing
// or future. Controllers call it while they are set up.
func (i *Informers) AddHandler(h EventHandler) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.handlers = append(i.handlers, h)
	for _, set := range i.clusters {
		set.addHandler(h)
	}
}

// For returns the informer set of m's cluster. A set built from other
// clients (the Cluster's endpoint or Secret changed) is stopped and
// replaced by one that watches the same kinds with m.
func (i *Informers) For(m *Member) *ClusterInformers {
	i.mu.Lock()
	defer i.mu.Unlock()
	old := i.clusters[m.Name]
	if old != nil && old.member == m {
		return old
	}
	set := newClusterInformers(m, i.opts, i.handlers)
	i.clusters[m.Name] = set
	if old != nil {
		old.stop()
		for _, gvk := range old.kinds() {
			_ = set.Watch(gvk) // best effort: the next Work sync retries
		}
	}
	return set
}

// Lookup returns the running informer set of cluster, if any.
func (i *Informers) Lookup(cluster string) *ClusterInformers {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.clusters[cluster]
}

// LookupNodesAndPods returns the running Node and Pod informers of cluster,
// if any.
func (i *Informers) LookupNodesAndPods(cluster string) *NodePodInformers {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.nodePods[cluster]
}

// Stop stops and forgets every informer of cluster: its member-object set
// and its Node and Pod informers.
func (i *Informers) Stop(cluster string) {
	i.mu.Lock()
	set, np, w := i.clusters[cluster], i.nodePods[cluster], i.watched[cluster]
	delete(i.clusters, cluster)
	delete(i.nodePods, cluster)
	delete(i.watched, cluster)
	i.mu.Unlock()
	if w != nil {
		w.stop()
	}
	if set != nil {
		set.stop()
	}
	if np != nil {
		np.stop()
	}
}

// stopMemberObjects stops and forgets the member-object set of cluster only.
func (i *Informers) stopMemberObjects(cluster string) {
	i.mu.Lock()
	set := i.clusters[cluster]
	delete(i.clusters, cluster)
	i.mu.Unlock()
	if set != nil {
		set.stop()
	}
}

// StopAll stops every member informer.
func (i *Informers) StopAll() {
	i.mu.Lock()
	sets, nps, ws := i.clusters, i.nodePods, i.watched
	i.clusters = map[string]*ClusterInformers{}
	i.nodePods = map[string]*NodePodInformers{}
	i.watched = map[string]*WatchedObjects{}
	i.mu.Unlock()
	for _, w := range ws {
		w.stop()
	}
	for _, set := range sets {
		set.stop()
	}
	for _, np := range nps {
		np.stop()
	}
}
