package syncer

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

func assignedQuota(clusters ...string) *policyv1alpha1.FederatedResourceQuota {
	frq := &policyv1alpha1.FederatedResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "team-quota"}}
	for _, c := range clusters {
		frq.Spec.StaticAssignments = append(frq.Spec.StaticAssignments, policyv1alpha1.StaticClusterAssignment{
			ClusterName: c, Hard: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}})
	}
	return frq
}

// quotaWorkNamespaces are the namespaces of the quota's Works not being
// deleted.
func quotaWorkNamespaces(t *testing.T, c client.Client) []string {
	t.Helper()
	var works workv1alpha1.WorkList
	if err := c.List(context.Background(), &works, client.MatchingLabels{
		names.FederatedResourceQuotaNamespaceLabel: "team-a", names.FederatedResourceQuotaNameLabel: "team-quota"}); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, w := range works.Items {
		if w.DeletionTimestamp.IsZero() { // the execution controller's finalizer keeps a removed Work a while
			out = append(out, w.Namespace)
		}
	}
	slices.Sort(out)
	return out
}

// TestReconcileWritesAssignedWorks: one Work per assigned registered
// cluster; an assignment to an unregistered cluster waits; the Work of a
// cluster no longer assigned is removed, and so are all of them once the
// quota is gone.
func TestReconcileWritesAssignedWorks(t *testing.T) {
	ctx := context.Background()
	frq := assignedQuota("member1", "member2")
	stale, err := desiredWork(frq, policyv1alpha1.StaticClusterAssignment{ClusterName: "member3"})
	if err != nil {
		t.Fatal(err)
	}
	staleWork, err := stale.NewWork()
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(frq, staleWork,
		&clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member1"}},
		&clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member3"}},
	).Build()
	events := record.NewFakeRecorder(5)
	r := New(Deps{Client: c, APIReader: c, Recorder: events})
	req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(frq)}
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	if got := quotaWorkNamespaces(t, c); !slices.Equal(got, []string{"karmada-es-member1"}) {
		t.Errorf("Works in %v, want only member1's (member2 unregistered, member3 unassigned)", got)
	}
	if e := <-events.Events; !strings.Contains(e, EventReasonSyncWorkSucceed) {
		t.Errorf("event %q", e)
	}
	// A second pass keeps the assigned cluster's Work.
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	if got := quotaWorkNamespaces(t, c); !slices.Equal(got, []string{"karmada-es-member1"}) {
		t.Errorf("after a second pass Works in %v, want member1's kept", got)
	}
	if err := c.Delete(ctx, frq); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	if got := quotaWorkNamespaces(t, c); len(got) != 0 {
		t.Errorf("Works in %v after the quota was deleted", got)
	}
}

// TestNewClusterEnqueuesItsQuotas: a created Cluster brings back exactly
// the quotas that assign to it.
func TestNewClusterEnqueuesItsQuotas(t *testing.T) {
	mine, other := assignedQuota("member1"), assignedQuota("member2")
	other.Name = "other"
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(mine, other).Build()
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	New(Deps{Client: c}).quotasAssigningTo().Create(context.Background(),
		event.CreateEvent{Object: &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member1"}}}, q)
	if q.Len() != 1 {
		t.Fatalf("%d requests, want 1", q.Len())
	}
	if got, _ := q.Get(); got.Name != "team-quota" {
		t.Errorf("enqueued %v, want team-a/team-quota", got)
	}
}
