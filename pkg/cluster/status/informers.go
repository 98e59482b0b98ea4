package status

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	"github.com/propel-mc/propel/pkg/membercluster"
)

// nodePodTrim is what the summary reads of Nodes and Pods; membercluster
// runs the informers with these transforms.
var nodePodTrim = membercluster.NodePodTransforms{Node: trimNode, Pod: trimPod}

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
	nodes := make([]*corev1.Node, 0, len(objs))
	for _, o := range objs {
		nodes = append(nodes, o.(*corev1.Node))
	}
	objs = np.Pods.GetStore().List()
	pods := make([]*corev1.Pod, 0, len(objs))
	for _, o := range objs {
		pods = append(pods, o.(*corev1.Pod))
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

// trimNode keeps only what the summary reads: allocatable and the Ready
// condition. Node images and managed fields are large.
func trimNode(obj any) (any, error) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil
	}
	out := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: n.UID, ResourceVersion: n.ResourceVersion}}
	out.Status.Allocatable = n.Status.Allocatable
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			out.Status.Conditions = []corev1.NodeCondition{{Type: c.Type, Status: c.Status}}
		}
	}
	return out, nil
}

// trimPod keeps only what the summary reads: node, phase and requests.
func trimPod(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	out := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, UID: p.UID, ResourceVersion: p.ResourceVersion}}
	out.Spec.NodeName, out.Spec.Overhead, out.Status.Phase = p.Spec.NodeName, p.Spec.Overhead, p.Status.Phase
	out.Spec.Containers = trimContainers(p.Spec.Containers)
	out.Spec.InitContainers = trimContainers(p.Spec.InitContainers)
	return out, nil
}

func trimContainers(cs []corev1.Container) []corev1.Container {
	if len(cs) == 0 {
		return nil
	}
	out := make([]corev1.Container, len(cs))
	for i := range cs {
		out[i] = corev1.Container{Name: cs[i].Name, Resources: corev1.ResourceRequirements{Requests: cs[i].Resources.Requests}}
	}
	return out
}
