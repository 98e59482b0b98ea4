package estimatorserver

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

func TestUsageLedgerTakesBackWhatAPodAdded(t *testing.T) {
	l := newUsageLedger()
	h := l.handler()
	a := pod("a", "n1", "1", corev1.PodRunning)
	b := pod("b", "n1", "2", corev1.PodRunning)
	h.OnAdd(a, true)
	h.OnAdd(b, true)
	h.OnAdd(pod("unbound", "", "5", corev1.PodPending), true)
	h.OnAdd(pod("done", "n1", "7", corev1.PodSucceeded), true)
	free := func() (int64, int64) {
		var c nodeCapacity
		n := node("n1", "16", nil)
		_, allocatable, _, err := newNodeTable(listerOf(t, n)).current()
		if err != nil {
			t.Fatal(err)
		}
		l.read(func() { c, _ = l.freeOn(n, allocatable[0], nil) })
		return c.free.get(corev1.ResourceCPU), c.pods
	}
	if cpu, pods := free(); cpu != 13000 || pods != 108 {
		t.Fatalf("after two running pods: cpu %d pods %d, want 13000 and 108", cpu, pods)
	}
	finished := a.DeepCopy()
	finished.Status.Phase = corev1.PodSucceeded
	h.OnUpdate(a, finished)
	if cpu, pods := free(); cpu != 14000 || pods != 109 {
		t.Fatalf("after a finished: cpu %d pods %d, want 14000 and 109", cpu, pods)
	}
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "default/b", Obj: b})
	if cpu, pods := free(); cpu != 16000 || pods != 110 {
		t.Fatalf("after b deleted: cpu %d pods %d, want 16000 and 110", cpu, pods)
	}
	if len(l.byNode) != 0 || len(l.byPod) != 0 {
		t.Fatalf("ledger keeps %d nodes and %d pods after every pod left, want none", len(l.byNode), len(l.byPod))
	}
}

func TestEstimateFollowsPodChanges(t *testing.T) {
	kube := fake.NewClientset(node("n1", "4", nil), pod("running", "n1", "3", corev1.PodRunning))
	ctx, waitFor := startWatching(t, kube)
	waitFor(1)
	if err := kube.CoreV1().Pods("default").Delete(ctx, "running", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(4)
	if _, err := kube.CoreV1().Pods("default").Create(ctx, pod("pending", "", "2", corev1.PodPending), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bound := pod("pending", "n1", "2", corev1.PodRunning)
	if _, err := kube.CoreV1().Pods("default").Update(ctx, bound, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(2)
}
