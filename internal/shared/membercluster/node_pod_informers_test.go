package membercluster

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// TestNodePodInformersLifecycle: the Node and Pod informers of a cluster
// survive a taint-only change (which rebuilds the member clients), are
// restarted when the endpoint changes, keep running while the Cluster is
// being deleted (cluster status reports until then; the member-object set
// stops), and are stopped by the member-informers controller when the
// Cluster is gone.
func TestNodePodInformersLifecycle(t *testing.T) {
	ctx := context.Background()
	cluster := &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "member1", UID: "uid-1", Generation: 1, Finalizers: []string{"test/keep"}},
		Spec: clusterv1alpha1.ClusterSpec{
			// Nothing listens there: the informers only retry their lists.
			APIEndpoint: "https://127.0.0.1:1", InsecureSkipTLSVerification: true, SyncMode: clusterv1alpha1.Push,
			SecretRef: &clusterv1alpha1.LocalSecretReference{Namespace: "karmada-cluster", Name: "member1"},
		},
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-cluster", Name: "member1"}, Data: map[string][]byte{"token": []byte("t0k")}}
	reader := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(cluster.DeepCopy(), secret).Build()
	clients := New(reader, Options{})
	informers := NewInformers(InformerOptions{})
	defer informers.StopAll()
	r := &informerReconciler{informers: informers, clients: clients, reader: reader}
	reconcileCluster := func() {
		t.Helper()
		if _, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: types.NamespacedName{Name: cluster.Name}}); err != nil {
			t.Fatalf("reconcile: %v", err)
		}
	}
	start := func(c *clusterv1alpha1.Cluster) (*Member, *NodePodInformers) {
		t.Helper()
		m, err := clients.ForCluster(ctx, c)
		if err != nil {
			t.Fatalf("clients: %v", err)
		}
		np, err := informers.NodesAndPods(c, m)
		if err != nil {
			t.Fatalf("node and pod informers: %v", err)
		}
		return m, np
	}

	m1, np1 := start(cluster)
	if got := informers.LookupNodesAndPods(cluster.Name); got != np1 || np1.Stopped() {
		t.Fatalf("lookup = %p (stopped %v), want running %p", got, np1.Stopped(), np1)
	}

	// A taint is a spec change: new generation, new member clients, but
	// the same connection, so the informers keep running (no Pod re-list).
	tainted := cluster.DeepCopy()
	tainted.Generation = 2
	tainted.Spec.Taints = []corev1.Taint{{Key: "cluster.karmada.io/not-ready", Effect: corev1.TaintEffectNoSchedule}}
	m2, np2 := start(tainted)
	if m2 == m1 {
		t.Fatal("member clients were not rebuilt on a new generation; the test no longer covers the taint case")
	}
	if np2 != np1 || np1.Stopped() {
		t.Fatalf("taint-only change restarted the node and pod informers (same %v, stopped %v)", np2 == np1, np1.Stopped())
	}
	reconcileCluster()
	if got := informers.LookupNodesAndPods(cluster.Name); got != np1 || np1.Stopped() {
		t.Fatal("member-informers controller restarted or stopped the node and pod informers of a live cluster")
	}

	// A new endpoint is a new connection: the old informers stop.
	moved := tainted.DeepCopy()
	moved.Generation = 3
	moved.Spec.APIEndpoint = "https://127.0.0.2:1"
	_, np3 := start(moved)
	if np3 == np1 || !np1.Stopped() || np3.Stopped() {
		t.Fatalf("endpoint change: new %v, old stopped %v, new stopped %v", np3 != np1, np1.Stopped(), np3.Stopped())
	}

	// The Cluster's deletion starts: the member-object set stops, the Node
	// and Pod informers keep running.
	m3, err := clients.ForCluster(ctx, moved)
	if err != nil {
		t.Fatal(err)
	}
	objects := informers.For(m3)
	if err := reader.Delete(ctx, cluster.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	reconcileCluster()
	if informers.Lookup(cluster.Name) != nil || objects.ctx.Err() == nil {
		t.Error("member-object informers of a deleting cluster still run")
	}
	if np3.Stopped() || informers.LookupNodesAndPods(cluster.Name) != np3 {
		t.Fatal("node and pod informers stopped before the cluster is gone")
	}

	// The Cluster is gone: the member-informers controller stops them.
	gone := &clusterv1alpha1.Cluster{}
	if err := reader.Get(ctx, types.NamespacedName{Name: cluster.Name}, gone); err != nil {
		t.Fatal(err)
	}
	gone.Finalizers = nil
	if err := reader.Update(ctx, gone); err != nil {
		t.Fatal(err)
	}
	reconcileCluster()
	if !np3.Stopped() {
		t.Error("node and pod informers of a removed cluster still run")
	}
	if got := informers.LookupNodesAndPods(cluster.Name); got != nil {
		t.Error("node and pod informers of a removed cluster still registered")
	}
}

func TestNodePodConfigAsksForProtobufWithoutTimeout(t *testing.T) {
	in := &rest.Config{Host: "https://member", Timeout: 30 * time.Second, ContentConfig: rest.ContentConfig{ContentType: "application/json"}}
	got := nodePodConfig(in)
	if got.ContentType != "application/vnd.kubernetes.protobuf" || got.AcceptContentTypes != "application/vnd.kubernetes.protobuf,application/json" {
		t.Errorf("content %q, accept %q; want protobuf first, JSON accepted", got.ContentType, got.AcceptContentTypes)
	}
	if got.Timeout != 0 {
		t.Errorf("timeout %s, want none for watches", got.Timeout)
	}
	if in.ContentType != "application/json" || in.Timeout != 30*time.Second {
		t.Error("the member's config was changed")
	}
}
