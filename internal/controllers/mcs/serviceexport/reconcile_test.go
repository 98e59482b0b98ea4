package serviceexport

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/controllers/mcs/collectedwork"
	"github.com/propel-mc/propel/internal/controllers/mcs/memberwatch"
	"github.com/propel-mc/propel/internal/controllers/mcs/memberwatch/memberwatchtest"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// exportWork is member1's Work of the ServiceExport ns/web, applied or
// not.
func exportWork(applied bool) *workv1alpha1.Work {
	w := memberwatchtest.Work(names.ExecutionSpace("member1"), "web-export", nil, memberwatchtest.Export("ns", "web"))
	status := metav1.ConditionFalse
	if applied {
		status = metav1.ConditionTrue
	}
	w.Status.Conditions = []metav1.Condition{{Type: workv1alpha1.WorkApplied, Status: status, Reason: "Test", LastTransitionTime: metav1.Now()}}
	return w
}

// member1 holds the export of ns/web (unless unexported), web's slice and
// Karmada's copy of one, an unexported Service's slice and a slice
// without a Service label.
func member1(exported bool) map[string][]*unstructured.Unstructured {
	objs := []*unstructured.Unstructured{
		memberwatchtest.Slice("ns", "web-a", "web", nil),
		memberwatchtest.Slice("ns", "web-copy", "web", map[string]string{names.KubeEndpointSliceManagedByLabel: names.EndpointSliceControllerManagedByValue}),
		memberwatchtest.Slice("ns", "api-a", "api", nil),
		memberwatchtest.Slice("ns", "unlabelled", "", nil),
	}
	if exported {
		objs = append(objs, memberwatchtest.Export("ns", "web"))
	}
	return map[string][]*unstructured.Unstructured{"member1": objs}
}

func newReconciler(t *testing.T, members map[string][]*unstructured.Unstructured, objs ...client.Object) (*Reconciler, client.Client, *memberwatchtest.Members) {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithStatusSubresource(&workv1alpha1.Work{}).WithObjects(objs...).Build()
	m := memberwatchtest.New(t, members)
	return New(Deps{Client: c, APIReader: c, Informers: m}, 10*time.Second), c, m
}

// TestAppliedExportStartsTheWatches: once the Work of a ServiceExport is
// applied, the member's ServiceExports and EndpointSlices are watched;
// not before, and not for a Work being deleted.
func TestAppliedExportStartsTheWatches(t *testing.T) {
	deleting := exportWork(true)
	deleting.Finalizers = []string{"test"}
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	for _, tc := range []struct {
		name string
		work *workv1alpha1.Work
		want []schema.GroupVersionResource
	}{
		{"applied", exportWork(true), []schema.GroupVersionResource{memberwatch.ServiceExports, memberwatch.EndpointSlices}},
		{"not applied", exportWork(false), nil},
		{"deleting", deleting, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _, m := newReconciler(t, member1(true), memberwatchtest.PushCluster("member1", true), tc.work)
			if _, err := r.reconcileWork(context.Background(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(tc.work)}); err != nil {
				t.Fatal(err)
			}
			got := m.Watched("member1")
			sortGVRs := func(a, b schema.GroupVersionResource) int { return strings.Compare(a.String(), b.String()) }
			slices.SortFunc(got, sortGVRs)
			slices.SortFunc(tc.want, sortGVRs)
			if !slices.Equal(got, tc.want) {
				t.Errorf("watched %v, want %v", got, tc.want)
			}
		})
	}
}

// TestMemberKeys: what a ServiceExport's or EndpointSlice's key reports
// or withdraws, given the member's objects. web-gone and api-gone are
// slices collected earlier and since gone from the member.
func TestMemberKeys(t *testing.T) {
	reported := map[string]string{"ns/web-gone": names.ManagedByServiceExport, "ns/api-gone": names.ManagedByServiceExport}
	for _, tc := range []struct {
		name      string
		exported  bool
		kind, key string
		want      map[string]string
	}{
		{name: "export reports its slices and withdraws the gone one", exported: true, kind: memberwatch.KindServiceExport, key: "web",
			want: map[string]string{"ns/web-a": names.ManagedByServiceExport, "ns/api-gone": names.ManagedByServiceExport}},
		{name: "gone export withdraws every Work of its Service", kind: memberwatch.KindServiceExport, key: "web",
			want: map[string]string{"ns/api-gone": names.ManagedByServiceExport}},
		{name: "slice of an exported Service is reported", exported: true, kind: memberwatch.KindEndpointSlice, key: "web-a",
			want: map[string]string{"ns/web-a": names.ManagedByServiceExport, "ns/web-gone": names.ManagedByServiceExport, "ns/api-gone": names.ManagedByServiceExport}},
		{name: "slice of an unexported Service is not", kind: memberwatch.KindEndpointSlice, key: "web-a", want: reported},
		{name: "Karmada's copy is not reported", exported: true, kind: memberwatch.KindEndpointSlice, key: "web-copy", want: reported},
		{name: "slice without a Service label is not reported", exported: true, kind: memberwatch.KindEndpointSlice, key: "unlabelled", want: reported},
		{name: "gone slice withdraws its Work", exported: true, kind: memberwatch.KindEndpointSlice, key: "web-gone",
			want: map[string]string{"ns/api-gone": names.ManagedByServiceExport}},
		{name: "key of another kind does nothing", exported: true, kind: "Service", key: "web", want: reported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			r, c, _ := newReconciler(t, member1(tc.exported), memberwatchtest.PushCluster("member1", true))
			for _, s := range []*unstructured.Unstructured{memberwatchtest.Slice("ns", "web-gone", "web", nil), memberwatchtest.Slice("ns", "api-gone", "api", nil)} {
				if err := collectedwork.Report(ctx, c, c, "member1", s.GetLabels()[names.KubeServiceNameLabel], s, collectedwork.ServiceExport); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := r.reconcileKey(ctx, memberwatch.Key{Cluster: "member1", Kind: tc.kind, Namespace: "ns", Name: tc.key}); err != nil {
				t.Fatal(err)
			}
			got, err := memberwatchtest.CollectedWorks(ctx, c, "member1")
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("collected Works (slice: managed-by) %v, want %v", got, tc.want)
			}
		})
	}
}

// TestExportKeyKeepsTheOtherPath: withdrawing a gone export from a Work
// that the MultiClusterService path also collects leaves the Work to that
// path.
func TestExportKeyKeepsTheOtherPath(t *testing.T) {
	ctx := context.Background()
	r, c, _ := newReconciler(t, member1(false), memberwatchtest.PushCluster("member1", true))
	gone := memberwatchtest.Slice("ns", "web-gone", "web", nil)
	for _, p := range []collectedwork.Path{collectedwork.ServiceExport, collectedwork.MultiClusterService} {
		if err := collectedwork.Report(ctx, c, c, "member1", "web", gone, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.reconcileKey(ctx, memberwatch.Key{Cluster: "member1", Kind: memberwatch.KindServiceExport, Namespace: "ns", Name: "web"}); err != nil {
		t.Fatal(err)
	}
	got, err := memberwatchtest.CollectedWorks(ctx, c, "member1")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"ns/web-gone": names.ManagedByMultiClusterService}; !maps.Equal(got, want) {
		t.Errorf("collected Works %v, want %v", got, want)
	}
}

// TestMemberKeysOfUnreachableClusters: a deleted, deleting or Pull
// cluster's keys change nothing; an unready cluster's are retried.
func TestMemberKeysOfUnreachableClusters(t *testing.T) {
	deleting := memberwatchtest.PushCluster("member1", true)
	deleting.Finalizers = []string{"test"}
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	pull := memberwatchtest.PushCluster("member1", true)
	pull.Spec.SyncMode = "Pull"
	for _, tc := range []struct {
		name    string
		objs    []client.Object
		wantErr string
	}{
		{name: "deleted"},
		{name: "deleting", objs: []client.Object{deleting}},
		{name: "pull", objs: []client.Object{pull}},
		{name: "unready", objs: []client.Object{memberwatchtest.PushCluster("member1", false)}, wantErr: "cluster member1 is not ready"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			r, c, m := newReconciler(t, member1(false), tc.objs...)
			gone := memberwatchtest.Slice("ns", "web-gone", "web", nil)
			if err := collectedwork.Report(ctx, c, c, "member1", "web", gone, collectedwork.ServiceExport); err != nil {
				t.Fatal(err)
			}
			_, err := r.reconcileKey(ctx, memberwatch.Key{Cluster: "member1", Kind: memberwatch.KindServiceExport, Namespace: "ns", Name: "web"})
			if (tc.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			got, err := memberwatchtest.CollectedWorks(ctx, c, "member1")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || len(m.Watched("member1")) != 0 {
				t.Errorf("collected Works %v, watched %v; want the Work kept and nothing watched", got, m.Watched("member1"))
			}
		})
	}
}

// TestExportKeysOfCollectedWorks: a collected Work of the ServiceExport
// path seen at start-up names its export; any other Work, or one whose
// namespace or labels are malformed, names nothing.
func TestExportKeysOfCollectedWorks(t *testing.T) {
	collected := func(namespace string, labels map[string]string) *workv1alpha1.Work {
		w := memberwatchtest.Work(namespace, "w", labels, memberwatchtest.Slice("ns", "web-a", "web", nil))
		suspend := true
		w.Spec.SuspendDispatching = &suspend
		return w
	}
	seLabels := map[string]string{names.EndpointSliceWorkManagedByLabel: names.ManagedByServiceExport, names.EndpointSliceNamespaceLabel: "ns", names.EndpointSliceNameLabel: "web"}
	dispatched := collected(names.ExecutionSpace("member1"), seLabels)
	dispatched.Spec.SuspendDispatching = nil
	for _, tc := range []struct {
		name string
		work *workv1alpha1.Work
		want []memberwatch.Key
	}{
		{"collected", collected(names.ExecutionSpace("member1"), seLabels),
			[]memberwatch.Key{{Cluster: "member1", Kind: memberwatch.KindServiceExport, Namespace: "ns", Name: "web"}}},
		{"dispatched", dispatched, nil},
		{"other path", collected(names.ExecutionSpace("member1"), map[string]string{names.EndpointSliceWorkManagedByLabel: names.ManagedByMultiClusterService,
			names.EndpointSliceNamespaceLabel: "ns", names.EndpointSliceNameLabel: "web"}), nil},
		{"not an execution namespace", collected("default", seLabels), nil},
		{"no service name", collected(names.ExecutionSpace("member1"), map[string]string{names.EndpointSliceWorkManagedByLabel: names.ManagedByServiceExport,
			names.EndpointSliceNamespaceLabel: "ns"}), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[memberwatch.Key]())
			defer q.ShutDown()
			exportKeysOfCollectedWorks().Create(context.Background(), event.TypedCreateEvent[*workv1alpha1.Work]{Object: tc.work}, q)
			var got []memberwatch.Key
			for q.Len() > 0 {
				k, _ := q.Get()
				q.Done(k)
				got = append(got, k)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("keys %v, want %v", got, tc.want)
			}
		})
	}
}
