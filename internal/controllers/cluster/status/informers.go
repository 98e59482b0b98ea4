package status

import (
	"sync"

	"github.com/propel-mc/propel/internal/shared/membercluster"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// summaries keeps, per cluster, the last summary computed from its Node
// and Pod informers.
type summaries struct {
	mu     sync.Mutex
	byName map[string]*memo
}

// memo is a summary and what it was computed from: the summary is
// recomputed only when the informers changed or saw an event, or the
// cluster spec changed.
type memo struct {
	informers  *membercluster.NodePodInformers
	changes    uint64
	generation int64
	summary    summary
}

func newSummaries() *summaries { return &summaries{byName: map[string]*memo{}} }

// of returns the summary of the nodes and pods cached by np.
func (s *summaries) of(cluster *clusterv1alpha1.Cluster, np *membercluster.NodePodInformers) summary {
	s.mu.Lock()
	m := s.byName[cluster.Name]
	s.mu.Unlock()
	changes := np.Changes()
	if m != nil && m.informers == np && m.changes == changes && m.generation == cluster.Generation {
		return m.summary
	}
	objs := np.Nodes.GetStore().List()
	nodes := make([]*membercluster.NodeRecord, 0, len(objs))
	for _, o := range objs {
		nodes = append(nodes, o.(*membercluster.NodeRecord))
	}
	objs = np.Pods.GetStore().List()
	pods := make([]*membercluster.PodRecord, 0, len(objs))
	for _, o := range objs {
		pods = append(pods, o.(*membercluster.PodRecord))
	}
	sum := summarize(nodes, pods, modelsOf(cluster))
	s.mu.Lock()
	s.byName[cluster.Name] = &memo{informers: np, changes: changes, generation: cluster.Generation, summary: sum}
	s.mu.Unlock()
	return sum
}

func (s *summaries) forget(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byName, name)
}
