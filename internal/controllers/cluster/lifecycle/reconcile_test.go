package lifecycle

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/propel-mc/propel/internal/shared/index"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// counts records the fake control plane's writes by verb.
type counts struct{ create, patch, delete int }

func fakeReconciler(t *testing.T, objs ...client.Object) (*Reconciler, *counts, *record.FakeRecorder) {
	t.Helper()
	n := &counts{}
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(objs...).
		WithStatusSubresource(&clusterv1alpha1.Cluster{}).
		WithIndex(&workv1alpha2.ResourceBinding{}, index.BindingByTargetCluster, index.TargetClustersOfBinding).
		WithIndex(&workv1alpha2.ClusterResourceBinding{}, index.BindingByTargetCluster, index.TargetClustersOfBinding).
		WithInterceptorFuncs(interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
				n.create++
				return c.Create(ctx, o, opts...)
			},
			Patch: func(ctx context.Context, c client.WithWatch, o client.Object, p client.Patch, opts ...client.PatchOption) error {
				n.patch++
				return c.Patch(ctx, o, p, opts...)
			},
			Delete: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.DeleteOption) error {
				n.delete++
				return c.Delete(ctx, o, opts...)
			},
		}).Build()
	r := New(Options{})
	rec := record.NewFakeRecorder(100)
	r.client, r.recorder, r.monitor = c, rec, newHealthMonitor(c, c, r.opts)
	return r, n, rec
}

func reconcileOnce(t *testing.T, r *Reconciler, name string) ctrl.Result {
	t.Helper()
	res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Name: name}})
	if err != nil {
		t.Fatalf("reconcile %s: %v", name, err)
	}
	return res
}

func TestSyncCreatesExecutionSpaceTaintsAndFinalizer(t *testing.T) {
	cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "m1"}, Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Push}}
	r, n, rec := fakeReconciler(t, cluster)
	reconcileOnce(t, r, "m1")
	ctx := context.Background()
	ns := &corev1.Namespace{}
	if err := r.client.Get(ctx, client.ObjectKey{Name: "karmada-es-m1"}, ns); err != nil || ns.Labels["karmada.io/system"] != "true" {
		t.Fatalf("execution space %v, %v", ns.Labels, err)
	}
	if err := r.client.Get(ctx, client.ObjectKey{Name: "m1"}, cluster); err != nil {
		t.Fatal(err)
	}
	if len(cluster.Finalizers) != 1 || cluster.Finalizers[0] != "karmada.io/cluster-controller" {
		t.Errorf("finalizers %v", cluster.Finalizers)
	}
	if len(cluster.Spec.Taints) != 1 || cluster.Spec.Taints[0].Key != "cluster.karmada.io/not-ready" || cluster.Spec.Taints[0].TimeAdded == nil {
		t.Errorf("a cluster without Ready gets the not-ready taint: %v", cluster.Spec.Taints)
	}
	if *n != (counts{create: 1, patch: 2}) {
		t.Errorf("writes %+v, want 1 create and 2 patches", *n)
	}
	if got := len(rec.Events); got != 2 {
		t.Errorf("%d events, want CreateExecutionSpaceSucceed and TaintClusterSucceed", got)
	}

	// Unchanged: nothing written.
	reconcileOnce(t, r, "m1")
	if *n != (counts{create: 1, patch: 2}) {
		t.Errorf("second reconcile wrote: %+v", *n)
	}

	// Ready: the taint goes; an unlabelled execution space gets the label.
	cluster.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "ClusterReady", LastTransitionTime: metav1.Now()}}
	if err := r.client.Status().Update(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	ns.Labels = nil
	if err := r.client.Update(ctx, ns); err != nil {
		t.Fatal(err)
	}
	reconcileOnce(t, r, "m1")
	if err := r.client.Get(ctx, client.ObjectKey{Name: "m1"}, cluster); err != nil || len(cluster.Spec.Taints) != 0 {
		t.Errorf("taints after Ready %v, %v", cluster.Spec.Taints, err)
	}
	if err := r.client.Get(ctx, client.ObjectKey{Name: "karmada-es-m1"}, ns); err != nil || ns.Labels["karmada.io/system"] != "true" {
		t.Errorf("execution space label not restored: %v, %v", ns.Labels, err)
	}
}

func TestRemovalWaitsForExecutionSpaceAndBindings(t *testing.T) {
	now := metav1.NewTime(time.Now())
	cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "m1", DeletionTimestamp: &now, Finalizers: []string{"karmada.io/cluster-controller"}},
		Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Push}}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "karmada-es-m1"}}
	work := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-es-m1", Name: "w", Finalizers: []string{"karmada.io/execution-controller"}}}
	rb := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "rb"},
		Spec: workv1alpha2.ResourceBindingSpec{Clusters: []workv1alpha2.TargetCluster{{Name: "m1"}}}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-cluster", Name: "m1"}}
	r, n, _ := fakeReconciler(t, cluster, ns, work, rb, secret)
	ctx := context.Background()

	// The fake API has no namespace controller: the namespace is simply gone.
	if res := reconcileOnce(t, r, "m1"); res.RequeueAfter != 10*time.Second || n.delete != 1 {
		t.Fatalf("first pass: %+v, %+v", res, *n)
	}
	// A Push cluster's Works keep their finalizer: the execution controller
	// decides about member objects.
	if err := r.client.Get(ctx, client.ObjectKeyFromObject(work), work); err != nil || len(work.Finalizers) != 1 {
		t.Fatalf("work finalizers %v, %v", work.Finalizers, err)
	}
	if res := reconcileOnce(t, r, "m1"); res.RequeueAfter != 10*time.Second {
		t.Fatalf("binding still targets the cluster: %+v", res)
	}
	rb.Spec.Clusters = nil
	if err := r.client.Update(ctx, rb); err != nil {
		t.Fatal(err)
	}
	if res := reconcileOnce(t, r, "m1"); res.RequeueAfter != 0 {
		t.Fatalf("done: %+v", res)
	}
	if err := r.client.Get(ctx, client.ObjectKey{Name: "m1"}, cluster); !apierrors.IsNotFound(err) {
		t.Fatalf("cluster after finalizer removal: %v", err)
	}
	for _, o := range []client.Object{rb, secret} {
		if err := r.client.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			t.Errorf("%T deleted: %v", o, err)
		}
	}
	if n.delete != 1 {
		t.Errorf("%d deletes, want only the execution space", n.delete)
	}
}

func TestRemovalReleasesWorksOfUnreadyPullCluster(t *testing.T) {
	now := metav1.NewTime(time.Now())
	cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "agent", DeletionTimestamp: &now, Finalizers: []string{"karmada.io/cluster-controller"}},
		Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Pull}}
	work := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-es-agent", Name: "w",
		Finalizers: []string{"karmada.io/execution-controller", "other"}}}
	r, _, _ := fakeReconciler(t, cluster, work)
	reconcileOnce(t, r, "agent")
	if err := r.client.Get(context.Background(), client.ObjectKeyFromObject(work), work); err != nil ||
		len(work.Finalizers) != 1 || work.Finalizers[0] != "other" {
		t.Fatalf("work finalizers %v, %v", work.Finalizers, err)
	}
}
