package endpointslicecollect

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/controllers/mcs/collectedwork"
	"github.com/propel-mc/propel/internal/controllers/mcs/memberwatch"
	"github.com/propel-mc/propel/internal/controllers/mcs/memberwatch/memberwatchtest"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

var es1 = names.ExecutionSpace("member1")

// marker is member1's marker Work of the MultiClusterService ns/web.
func marker() *workv1alpha1.Work {
	mcs := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "networking.karmada.io/v1alpha1", "kind": "MultiClusterService",
		"metadata": map[string]interface{}{"namespace": "ns", "name": "web"},
	}}
	return memberwatchtest.Work(es1, "web-marker", map[string]string{
		names.MultiClusterServicePermanentIDLabel: "id-1",
		names.MultiClusterServiceNamespaceLabel:   "ns",
		names.MultiClusterServiceNameLabel:        "web",
	}, mcs)
}

// member1Slices are member1's slices: two of Service ns/web, one of them
// a copy Karmada made, one of ns/api and one of web in another namespace.
func member1Slices() map[string][]*unstructured.Unstructured {
	return map[string][]*unstructured.Unstructured{"member1": {
		memberwatchtest.Slice("ns", "web-a", "web", nil),
		memberwatchtest.Slice("ns", "web-copy", "web", map[string]string{names.KubeEndpointSliceManagedByLabel: names.EndpointSliceDispatchManagedByValue}),
		memberwatchtest.Slice("ns", "api-a", "api", nil),
		memberwatchtest.Slice("other", "web-b", "web", nil),
		memberwatchtest.Slice("ns", "unlabelled", "", nil),
	}}
}

func newReconciler(t *testing.T, members map[string][]*unstructured.Unstructured, objs ...client.Object) (*Reconciler, client.Client, *memberwatchtest.Members) {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(objs...).Build()
	m := memberwatchtest.New(t, members)
	return New(Deps{Client: c, APIReader: c, Informers: m}, 10*time.Second), c, m
}

// TestMarkerQueuesTheServiceSlices: a marker Work queues the keys of its
// Service's slices in the provider, not Karmada's copies nor other
// Services' slices; before the member-objects controller has a queue the
// marker is retried.
func TestMarkerQueuesTheServiceSlices(t *testing.T) {
	ctx := context.Background()
	r, _, _ := newReconciler(t, member1Slices(), memberwatchtest.PushCluster("member1", true), marker())
	req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(marker())}
	if res, err := r.reconcileMarker(ctx, req); err != nil || res.RequeueAfter == 0 {
		t.Fatalf("without a queue: %+v, %v; want a retry", res, err)
	}
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[memberwatch.Key]())
	t.Cleanup(q.ShutDown)
	if err := r.Watcher.Source().Start(ctx, q); err != nil {
		t.Fatal(err)
	}
	if res, err := r.reconcileMarker(ctx, req); err != nil || res.RequeueAfter != 0 {
		t.Fatalf("with a queue: %+v, %v", res, err)
	}
	want := memberwatch.Key{Cluster: "member1", Kind: memberwatch.KindEndpointSlice, Namespace: "ns", Name: "web-a"}
	var got []memberwatch.Key
	for q.Len() > 0 {
		k, _ := q.Get()
		q.Done(k)
		got = append(got, k)
	}
	if len(got) != 1 || got[0] != want {
		t.Errorf("queued %v, want only %v", got, want)
	}
}

// TestNotAMarker: a Work that lacks the MCS's permanent ID, or is being
// deleted, starts no member watch.
func TestNotAMarker(t *testing.T) {
	unmarked := marker()
	delete(unmarked.Labels, names.MultiClusterServicePermanentIDLabel)
	deleting := marker()
	deleting.Finalizers = []string{"test"}
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	for name, w := range map[string]*workv1alpha1.Work{"no permanent id": unmarked, "deleting": deleting} {
		t.Run(name, func(t *testing.T) {
			r, _, m := newReconciler(t, member1Slices(), memberwatchtest.PushCluster("member1", true), w)
			if _, err := r.reconcileMarker(context.Background(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(w)}); err != nil {
				t.Fatal(err)
			}
			if got := m.Watched("member1"); len(got) != 0 {
				t.Errorf("watches %v started", got)
			}
		})
	}
}

// TestSliceKeys: what a member slice's key reports or withdraws, given the
// slice, its Service's marker and the cluster.
func TestSliceKeys(t *testing.T) {
	deletingMarker := marker()
	deletingMarker.Finalizers = []string{"test"}
	deletingMarker.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	deletingCluster := memberwatchtest.PushCluster("member1", true)
	deletingCluster.Finalizers = []string{"test"}
	deletingCluster.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	pull := memberwatchtest.PushCluster("member1", true)
	pull.Spec.SyncMode = clusterv1alpha1.Pull
	ready := memberwatchtest.PushCluster("member1", true)
	for _, tc := range []struct {
		name  string
		slice string // key's name, in namespace ns
		// objs are the control-plane objects; reported the paths a Work
		// of a slice gone from the member (web-gone) was collected for.
		objs     []client.Object
		reported []collectedwork.Path
		// wantWork is the slice whose Work must be left (not being
		// deleted) with the managed-by set wantManagedBy; "" wants none.
		wantWork, wantManagedBy string
		wantErr                 string
	}{
		{name: "slice of a marked Service is reported", slice: "web-a", objs: []client.Object{ready, marker()},
			wantWork: "web-a", wantManagedBy: names.ManagedByMultiClusterService},
		{name: "slice of an unmarked Service is not", slice: "api-a", objs: []client.Object{ready, marker()}},
		{name: "marker being deleted reports nothing", slice: "web-a", objs: []client.Object{ready, deletingMarker}},
		{name: "Karmada's copy is not reported", slice: "web-copy", objs: []client.Object{ready, marker()}},
		{name: "slice without a Service label is not reported", slice: "unlabelled", objs: []client.Object{ready, marker()}},
		{name: "gone slice withdraws its Work", slice: "web-gone", objs: []client.Object{ready, marker()},
			reported: []collectedwork.Path{collectedwork.MultiClusterService}},
		{name: "gone slice leaves the other path in the Work", slice: "web-gone", objs: []client.Object{ready, marker()},
			reported: []collectedwork.Path{collectedwork.MultiClusterService, collectedwork.ServiceExport}, wantWork: "web-gone", wantManagedBy: names.ManagedByServiceExport},
		{name: "gone slice leaves a Work of the other path alone", slice: "web-gone", objs: []client.Object{ready, marker()},
			reported: []collectedwork.Path{collectedwork.ServiceExport}, wantWork: "web-gone", wantManagedBy: names.ManagedByServiceExport},
		{name: "deleted cluster: nothing is withdrawn", slice: "web-gone", objs: []client.Object{marker()},
			reported: []collectedwork.Path{collectedwork.MultiClusterService}, wantWork: "web-gone", wantManagedBy: names.ManagedByMultiClusterService},
		{name: "cluster being deleted: nothing is reported", slice: "web-a", objs: []client.Object{deletingCluster, marker()}},
		{name: "pull cluster: nothing is reported", slice: "web-a", objs: []client.Object{pull, marker()}},
		{name: "unready cluster is retried", slice: "web-a", objs: []client.Object{memberwatchtest.PushCluster("member1", false), marker()},
			wantErr: "cluster member1 is not ready"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			r, c, _ := newReconciler(t, member1Slices(), tc.objs...)
			for _, p := range tc.reported {
				if err := collectedwork.Report(ctx, c, c, "member1", "web", memberwatchtest.Slice("ns", "web-gone", "web", nil), p); err != nil {
					t.Fatal(err)
				}
			}
			_, err := r.reconcileKey(ctx, memberwatch.Key{Cluster: "member1", Kind: memberwatch.KindEndpointSlice, Namespace: "ns", Name: tc.slice})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := memberwatchtest.CollectedWorks(ctx, c, "member1")
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			if tc.wantWork != "" {
				want["ns/"+tc.wantWork] = tc.wantManagedBy
			}
			if !maps.Equal(got, want) {
				t.Errorf("collected Works (slice: managed-by) %v, want %v", got, want)
			}
		})
	}
}

// TestGoneSliceLeavesADispatchedWork: a dispatched Work that happens to
// bear the collected Work's name (one propagating a control-plane slice)
// is not withdrawn when the member slice of that name is gone.
func TestGoneSliceLeavesADispatchedWork(t *testing.T) {
	ctx := context.Background()
	dispatched := memberwatchtest.Work(es1, collectedwork.WorkName("ns", "web-gone"),
		map[string]string{names.EndpointSliceWorkManagedByLabel: names.ManagedByMultiClusterService},
		memberwatchtest.Slice("ns", "web-gone", "web", nil))
	r, c, _ := newReconciler(t, member1Slices(), memberwatchtest.PushCluster("member1", true), marker(), dispatched)
	if _, err := r.reconcileKey(ctx, memberwatch.Key{Cluster: "member1", Kind: memberwatch.KindEndpointSlice, Namespace: "ns", Name: "web-gone"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(dispatched), &workv1alpha1.Work{}); apierrors.IsNotFound(err) {
		t.Error("the dispatched Work was deleted")
	}
}
