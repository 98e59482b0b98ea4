package status

import (
	corev1 "k8s.io/api/core/v1"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// summary is what the member's nodes and pods add up to.
type summary struct {
	nodes     *clusterv1alpha1.NodeSummary
	resources *clusterv1alpha1.ResourceSummary
}

// summarize computes nodeSummary and resourceSummary:
//   - allocatable sums every node's status.allocatable, ready or not;
//   - allocated sums the effective requests of non-terminal pods bound to
//     a node, allocating those of pods not bound yet, each with a pods count;
//   - allocatableModelings counts nodes per grade of models.
func summarize(nodes []*corev1.Node, pods []*corev1.Pod, models []clusterv1alpha1.ResourceModel) summary {
	allocatable := corev1.ResourceList{}
	ready := int32(0)
	for _, n := range nodes {
		sumLists(allocatable, n.Status.Allocatable)
		if nodeReady(n) {
			ready++
		}
	}
	allocated, allocating, perNode := podUsage(pods)
	return summary{
		nodes: &clusterv1alpha1.NodeSummary{TotalNum: int32(len(nodes)), ReadyNum: ready},
		resources: &clusterv1alpha1.ResourceSummary{
			Allocatable:          allocatable,
			Allocated:            allocated.resourceList(),
			Allocating:           allocating.resourceList(),
			AllocatableModelings: modelings(models, nodes, perNode),
		},
	}
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func terminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// podUsage sums pod requests: allocated (bound, non-terminal), allocating
// (not bound yet, non-terminal) and the allocated usage per node, each
// including a pods count.
func podUsage(pods []*corev1.Pod) (allocated, allocating amounts, perNode map[string]amounts) {
	allocated, allocating, perNode = amounts{}, amounts{}, map[string]amounts{}
	for _, p := range pods {
		if terminal(p) {
			continue
		}
		req := podRequests(&p.Spec)
		req[corev1.ResourcePods]++
		if p.Spec.NodeName == "" {
			allocating.addAmounts(req)
			continue
		}
		allocated.addAmounts(req)
		onNode := perNode[p.Spec.NodeName]
		if onNode == nil {
			onNode = amounts{}
			perNode[p.Spec.NodeName] = onNode
		}
		onNode.addAmounts(req)
	}
	return allocated, allocating, perNode
}
