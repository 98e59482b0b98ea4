package status

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/propel-mc/propel/internal/shared/membercluster"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// fakeReconciler runs against a fake control plane that counts status
// writes.
func fakeReconciler(t *testing.T, objs ...client.Object) (*Reconciler, *int) {
	t.Helper()
	writes := 0
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(objs...).
		WithStatusSubresource(&clusterv1alpha1.Cluster{}).
		WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			writes++
			return c.SubResource(sub).Patch(ctx, obj, p, opts...)
		}}).Build()
	r := New(membercluster.New(c, membercluster.Options{}), membercluster.NewInformers(membercluster.InformerOptions{}), Options{})
	r.client = c
	return r, &writes
}

func TestWriteStatusComparesSemantically(t *testing.T) {
	ltt := metav1.NewTime(time.Unix(1000, 0))
	cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "m"}, Status: clusterv1alpha1.ClusterStatus{
		Conditions:      []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "ClusterReady", Message: "ok", LastTransitionTime: ltt}},
		ResourceSummary: &clusterv1alpha1.ResourceSummary{Allocatable: list("cpu", "8", "memory", "32Gi")},
	}}
	r, writes := fakeReconciler(t, cluster)
	ctx := context.Background()
	if err := r.client.Get(ctx, client.ObjectKey{Name: "m"}, cluster); err != nil {
		t.Fatal(err)
	}
	desired := cluster.Status.DeepCopy()
	desired.ResourceSummary.Allocatable = list("cpu", "8000m", "memory", "34359738368")
	// A heartbeat: the same Ready status set again keeps its transition time.
	meta.SetStatusCondition(&desired.Conditions, metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "ClusterReady", Message: "ok"})
	if err := r.writeStatus(ctx, cluster, desired); err != nil || *writes != 0 {
		t.Fatalf("semantically equal status: %d writes, %v", *writes, err)
	}
	desired.ResourceSummary.Allocatable[corev1.ResourceCPU] = list("cpu", "7")[corev1.ResourceCPU]
	if err := r.writeStatus(ctx, cluster, desired); err != nil || *writes != 1 {
		t.Fatalf("changed allocatable: %d writes, %v", *writes, err)
	}
}

func TestCycleWithoutCredentials(t *testing.T) {
	cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "m", Finalizers: []string{"karmada.io/cluster-controller"}},
		Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Push, APIEndpoint: "https://127.0.0.1:1",
			SecretRef: &clusterv1alpha1.LocalSecretReference{Namespace: "karmada-cluster", Name: "m"}}}
	r, writes := fakeReconciler(t, cluster)
	ctx := context.Background()
	req := ctrl.Request{NamespacedName: client.ObjectKey{Name: "m"}}
	for range 2 {
		res, err := r.Reconcile(ctx, req)
		if err != nil || res.RequeueAfter != 10*time.Second {
			t.Fatalf("reconcile: %+v, %v", res, err)
		}
	}
	if *writes != 1 {
		t.Errorf("two cycles wrote %d times, want 1", *writes)
	}
	if err := r.client.Get(ctx, req.NamespacedName, cluster); err != nil {
		t.Fatal(err)
	}
	ready := meta.FindStatusCondition(cluster.Status.Conditions, "Ready")
	if ready == nil || ready.Reason != "StatusCollectionFailed" || ready.Status != metav1.ConditionFalse {
		t.Fatalf("Ready %+v", ready)
	}
}

func TestOutOfScopeClustersAreLeftAlone(t *testing.T) {
	pull := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "pull", Finalizers: []string{"karmada.io/cluster-controller"}},
		Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Pull}}
	noFinalizer := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "new"},
		Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Push, SecretRef: &clusterv1alpha1.LocalSecretReference{Name: "x"}}}
	r, writes := fakeReconciler(t, pull, noFinalizer)
	for _, name := range []string{"pull", "new", "absent"} {
		res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Name: name}})
		if err != nil || res.RequeueAfter != 0 {
			t.Errorf("%s: %+v, %v", name, res, err)
		}
	}
	if *writes != 0 {
		t.Errorf("%d writes", *writes)
	}
}
