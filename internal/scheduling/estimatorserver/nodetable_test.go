package estimatorserver

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// listerOf is a node lister over nodes.
func listerOf(t *testing.T, nodes ...*corev1.Node) corelisters.NodeLister {
	t.Helper()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, n := range nodes {
		if err := idx.Add(n); err != nil {
			t.Fatal(err)
		}
	}
	return corelisters.NewNodeLister(idx)
}

// TestNodeTableRebuildsOnlyAfterNodeEvents: requests share one table until
// a node event, and the rebuilt table has the nodes sorted by name with
// their allocatable amounts.
func TestNodeTableRebuildsOnlyAfterNodeEvents(t *testing.T) {
	b, a := node("b", "8", nil), node("a", "4", nil)
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = idx.Add(b)
	table := newNodeTable(corelisters.NewNodeLister(idx))
	nodes, _, _, err := table.current()
	if err != nil || len(nodes) != 1 {
		t.Fatalf("first build: %d nodes, %v", len(nodes), err)
	}
	_ = idx.Add(a)
	if again, _, _, _ := table.current(); len(again) != 1 || &again[0] != &nodes[0] {
		t.Fatalf("table rebuilt without a node event: %d nodes", len(again))
	}
	table.handler().OnAdd(a, false)
	nodes, allocatable, listed, err := table.current()
	if err != nil || len(nodes) != 2 || nodes[0].Name != "a" || nodes[1].Name != "b" {
		t.Fatalf("after the event: %v, %v; want a then b", nodes, err)
	}
	if cpu := allocatable[0].get(corev1.ResourceCPU); cpu != 4000 {
		t.Errorf("a: cpu %d, want 4000", cpu)
	}
	if cpu, pods := allocatable[1].get(corev1.ResourceCPU), allocatable[1].get(corev1.ResourcePods); cpu != 8000 || pods != 110 {
		t.Errorf("b: cpu %d pods %d, want 8000 and 110", cpu, pods)
	}
	if listed != len(allocatable[0])+len(allocatable[1]) || listed != 6 {
		t.Errorf("listed %d, want 6", listed)
	}
}

// TestEstimateFollowsNodeChanges: nodes added, resized and deleted in the
// member change the answers.
func TestEstimateFollowsNodeChanges(t *testing.T) {
	kube := fake.NewClientset(node("n1", "4", nil))
	ctx, waitFor := startWatching(t, kube)
	waitFor(4)
	if _, err := kube.CoreV1().Nodes().Create(ctx, node("n2", "3", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(7)
	resized := node("n1", "4", nil)
	resized.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("10")
	if _, err := kube.CoreV1().Nodes().Update(ctx, resized, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(13)
	if err := kube.CoreV1().Nodes().Delete(ctx, "n2", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(10)
}
