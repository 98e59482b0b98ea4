package unifiedauth

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// workWrites counts the Work writes sent to the API server.
type workWrites struct{ creates, updates int }

// newWorkClient is an API server holding objs whose cache, when stale,
// misses every Work (it has not seen them yet), counting Work writes.
func newWorkClient(stale *bool, writes *workWrites, objs ...client.Object) (client.Client, client.Reader) {
	api := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(objs...).Build()
	cached := interceptor.NewClient(api, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(*workv1alpha1.Work); ok && *stale {
				return apierrors.NewNotFound(workv1alpha1.GroupVersion.WithResource("works").GroupResource(), key.Name)
			}
			return c.Get(ctx, key, obj, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if _, ok := obj.(*workv1alpha1.Work); ok {
				writes.creates++
			}
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			if _, ok := obj.(*workv1alpha1.Work); ok {
				writes.updates++
			}
			return c.Update(ctx, obj, opts...)
		},
	})
	return cached, api
}

func impersonatedCluster() *clusterv1alpha1.Cluster {
	return &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "member1", UID: "cluster-uid"},
		Spec: clusterv1alpha1.ClusterSpec{
			ImpersonatorSecretRef: &clusterv1alpha1.LocalSecretReference{Namespace: "karmada-cluster", Name: "member1-impersonator"},
		},
	}
}

// TestSyncWritesEachWorkOnce: each Work takes one write when it is new,
// none when it is current, and one attempt when the cache has not seen it
// yet (the writer reads it fresh instead of trying to create it again).
func TestSyncWritesEachWorkOnce(t *testing.T) {
	ctx := context.Background()
	cluster := impersonatedCluster()
	stale := false
	writes := &workWrites{}
	cached, api := newWorkClient(&stale, writes, cluster)
	r := New(Deps{Client: cached, APIReader: api}, Options{})

	if err := r.sync(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	if writes.creates != 2 || writes.updates != 0 {
		t.Fatalf("first sync: %d creates and %d updates, want one create per Work", writes.creates, writes.updates)
	}
	works := &workv1alpha1.WorkList{}
	if err := api.List(ctx, works); err != nil {
		t.Fatal(err)
	}
	for _, w := range works.Items {
		ref := metav1.GetControllerOf(&w)
		if ref == nil || ref.Kind != "Cluster" || ref.Name != "member1" || ref.UID != "cluster-uid" || !ptr.Deref(ref.BlockOwnerDeletion, false) {
			t.Errorf("Work %s/%s is controlled by %+v, want the Cluster", w.Namespace, w.Name, ref)
		}
	}

	*writes = workWrites{}
	if err := r.sync(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	if writes.creates != 0 || writes.updates != 0 {
		t.Errorf("sync of current Works: %d creates and %d updates, want none", writes.creates, writes.updates)
	}

	stale = true
	*writes = workWrites{}
	if err := r.sync(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	if writes.creates+writes.updates != 2 {
		t.Errorf("sync with a cache behind the API server: %d creates and %d updates, want one write attempt per Work", writes.creates, writes.updates)
	}
}

// TestSyncUpdatesChangedWorkInOneWrite: a subject change reaches the
// role's Work in one update.
func TestSyncUpdatesChangedWorkInOneWrite(t *testing.T) {
	ctx := context.Background()
	cluster := impersonatedCluster()
	stale := false
	writes := &workWrites{}
	cached, api := newWorkClient(&stale, writes, cluster)
	r := New(Deps{Client: cached, APIReader: api}, Options{})
	if err := r.sync(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "proxy"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{"cluster.karmada.io"}, Resources: []string{"clusters/proxy"}, ResourceNames: []string{"member1"}, Verbs: []string{"*"},
	}}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "proxy"}, Subjects: []rbacv1.Subject{user("alice")},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "proxy"}}
	for _, obj := range []client.Object{role, binding} {
		if err := api.(client.Client).Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	*writes = workWrites{}
	if err := r.sync(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	if writes.creates != 0 || writes.updates != 1 {
		t.Errorf("sync after a subject change: %d creates and %d updates, want one update (the role's Work)", writes.creates, writes.updates)
	}
}
