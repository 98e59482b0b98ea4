package status

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/propel-mc/propel/internal/shared/membercluster"
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
func summarize(nodes []*membercluster.NodeRecord, pods []*membercluster.PodRecord, models []clusterv1alpha1.ResourceModel) summary {
	allocatable := newFormattedSum()
	ready := int32(0)
	for _, n := range nodes {
		allocatable.add(&n.Allocatable)
		if n.Ready {
			ready++
		}
	}
	allocated, allocating, perNode := podUsage(pods)
	return summary{
		nodes: &clusterv1alpha1.NodeSummary{TotalNum: int32(len(nodes)), ReadyNum: ready},
		resources: &clusterv1alpha1.ResourceSummary{
			Allocatable:          allocatable.resourceList(),
			Allocated:            allocated.resourceList(),
			Allocating:           allocating.resourceList(),
			AllocatableModelings: modelings(models, nodes, perNode),
		},
	}
}

func terminal(p *membercluster.PodRecord) bool {
	return p.Phase == corev1.PodSucceeded || p.Phase == corev1.PodFailed
}

// podUsage sums pod requests: allocated (bound, non-terminal), allocating
// (not bound yet, non-terminal) and the allocated usage per node, each
// including a pods count. The records carry each pod's effective request
// precomputed, so this allocates per node, not per pod.
func podUsage(pods []*membercluster.PodRecord) (allocated, allocating amounts, perNode map[string]amounts) {
	allocated, allocating, perNode = amounts{}, amounts{}, map[string]amounts{}
	for _, p := range pods {
		if terminal(p) {
			continue
		}
		if p.NodeName == "" {
			p.Requests().AddTo(allocating)
			allocating[corev1.ResourcePods]++
			continue
		}
		p.Requests().AddTo(allocated)
		allocated[corev1.ResourcePods]++
		onNode := perNode[p.NodeName]
		if onNode == nil {
			onNode = amounts{}
			perNode[p.NodeName] = onNode
		}
		p.Requests().AddTo(onNode)
		onNode[corev1.ResourcePods]++
	}
	return allocated, allocating, perNode
}
