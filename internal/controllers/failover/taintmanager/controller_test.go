package taintmanager

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/shared/index"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

var testNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func taintedCluster() *clusterv1alpha1.Cluster {
	added := metav1.NewTime(testNow.Add(-10 * time.Second))
	c := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member1"}}
	c.Spec.Taints = []corev1.Taint{{Key: "cluster.karmada.io/not-ready", Effect: corev1.TaintEffectNoExecute, TimeAdded: &added}}
	return c
}

func binding() *workv1alpha2.ResourceBinding {
	b := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "app-deployment"}}
	b.Spec.Resource = workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "app"}
	b.Spec.Clusters = []workv1alpha2.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member2", Replicas: 1}}
	b.Spec.Placement = &policyv1alpha1.Placement{}
	return b
}

func newManager(t *testing.T, opts Options, objs ...client.Object) (*TaintManager, client.Client, *record.FakeRecorder) {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(objs...).
		WithIndex(&workv1alpha2.ResourceBinding{}, index.BindingByTargetCluster, index.TargetClustersOfBinding).
		WithIndex(&workv1alpha2.ClusterResourceBinding{}, index.BindingByTargetCluster, index.TargetClustersOfBinding).Build()
	rec := record.NewFakeRecorder(10)
	m := New(opts)
	m.client, m.recorder, m.now = c, rec, func() time.Time { return testNow }
	m.rb = newEvictionQueue("binding-eviction", m.opts, m.evict)
	m.crb = newEvictionQueue("cluster-binding-eviction", m.opts, m.evict)
	return m, c, rec
}

func TestEvictWritesOneTask(t *testing.T) {
	ctx := context.Background()
	b := binding()
	b.Spec.Failover = &policyv1alpha1.FailoverBehavior{Cluster: &policyv1alpha1.ClusterFailoverBehavior{}}
	m, c, _ := newManager(t, Options{EnableEviction: true, PurgeMode: policyv1alpha1.PurgeModeDirectly}, taintedCluster(), b)
	key := evictionKey{Cluster: "member1", Namespace: "default", Name: "app-deployment"}
	for range 2 { // the second pass finds nothing to do
		if again, err := m.evict(ctx, key); err != nil || again != 0 {
			t.Fatalf("evict: %v, again %v", err, again)
		}
	}
	got := &workv1alpha2.ResourceBinding{}
	if err := c.Get(ctx, key.namespacedName(), got); err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.Clusters) != 1 || got.Spec.Clusters[0].Name != "member2" {
		t.Errorf("spec.clusters = %v", got.Spec.Clusters)
	}
	if len(got.Spec.GracefulEvictionTasks) != 1 {
		t.Fatalf("tasks = %v", got.Spec.GracefulEvictionTasks)
	}
	task := got.Spec.GracefulEvictionTasks[0]
	// failover.cluster with an empty purgeMode means Gracefully, whatever the flag says.
	if task.FromCluster != "member1" || task.PurgeMode != policyv1alpha1.PurgeModeGracefully || task.Reason != "TaintUntolerated" ||
		task.Producer != "TaintManager" || *task.Replicas != 2 || task.CreationTimestamp == nil || task.GracePeriodSeconds != nil {
		t.Errorf("task = %+v", task)
	}
}

func TestEvictHonoursTolerationsAndFlag(t *testing.T) {
	ctx := context.Background()
	key := evictionKey{Cluster: "member1", Namespace: "default", Name: "app-deployment"}

	b := binding()
	b.Spec.Placement.ClusterTolerations = []corev1.Toleration{{Key: "cluster.karmada.io/not-ready", Operator: corev1.TolerationOpExists,
		Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](30)}}
	m, c, _ := newManager(t, Options{EnableEviction: true}, taintedCluster(), b)
	if again, err := m.evict(ctx, key); err != nil || again != 20*time.Second {
		t.Errorf("tolerated for 30s since 10s: again %v, %v; want 20s", again, err)
	}
	m.now = func() time.Time { return testNow.Add(21 * time.Second) }
	if _, err := m.evict(ctx, key); err != nil {
		t.Fatal(err)
	}
	got := &workv1alpha2.ResourceBinding{}
	_ = c.Get(ctx, key.namespacedName(), got)
	if len(got.Spec.GracefulEvictionTasks) != 1 || got.Spec.GracefulEvictionTasks[0].PurgeMode != policyv1alpha1.PurgeModeGracefully {
		t.Errorf("after the toleration: tasks %v", got.Spec.GracefulEvictionTasks)
	}

	m, c, _ = newManager(t, Options{EnableEviction: false}, taintedCluster(), binding())
	if _, err := m.evict(ctx, key); err != nil {
		t.Fatal(err)
	}
	if res, err := m.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: "member1"}}); err != nil || res.RequeueAfter != 0 {
		t.Errorf("flag off: reconcile %v %v", res, err)
	}
	_ = c.Get(ctx, key.namespacedName(), got)
	if len(got.Spec.GracefulEvictionTasks) != 0 || len(got.Spec.Clusters) != 2 {
		t.Errorf("--enable-no-execute-taint-eviction=false evicted: %+v", got.Spec)
	}
}

func TestReconcileQueuesBindingsOnTaintedCluster(t *testing.T) {
	ctx := context.Background()
	other := binding()
	other.Name = "elsewhere"
	other.Spec.Clusters = []workv1alpha2.TargetCluster{{Name: "member2"}}
	m, _, _ := newManager(t, Options{EnableEviction: true}, taintedCluster(), binding(), other)
	res, err := m.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: "member1"}})
	if err != nil || res.RequeueAfter != recheckInterval {
		t.Fatalf("reconcile: %v %v", res, err)
	}
	if m.rb.queue.Len() != 1 || m.crb.queue.Len() != 0 {
		t.Errorf("queued %d RBs, %d CRBs; want the one binding on member1", m.rb.queue.Len(), m.crb.queue.Len())
	}
}

func TestStatePreservation(t *testing.T) {
	ctx := context.Background()
	b := binding()
	b.Spec.Failover = &policyv1alpha1.FailoverBehavior{Cluster: &policyv1alpha1.ClusterFailoverBehavior{
		StatePreservation: &policyv1alpha1.StatePreservation{Rules: []policyv1alpha1.StatePreservationRule{{AliasLabelName: "app.io/replicas", JSONPath: "{.readyReplicas}"}}},
	}}
	key := evictionKey{Cluster: "member1", Namespace: "default", Name: "app-deployment"}
	m, c, _ := newManager(t, Options{EnableEviction: true, StatePreservation: true}, taintedCluster(), b)
	// No collected status yet: the eviction waits (error, retried).
	if _, err := m.evict(ctx, key); err == nil {
		t.Fatal("evicted without the collected status")
	}
	got := &workv1alpha2.ResourceBinding{}
	_ = c.Get(ctx, key.namespacedName(), got)
	got.Status.AggregatedStatus = []workv1alpha2.AggregatedStatusItem{{ClusterName: "member1", Status: &runtime.RawExtension{Raw: []byte(`{"readyReplicas":2}`)}}}
	if err := c.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	if _, err := m.evict(ctx, key); err != nil {
		t.Fatal(err)
	}
	_ = c.Get(ctx, key.namespacedName(), got)
	if s := got.Spec.GracefulEvictionTasks[0].PreservedLabelState; s["app.io/replicas"] != "2" {
		t.Errorf("preservedLabelState = %v", s)
	}
}
