package rebalancer

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	appsv1alpha1 "github.com/propel-mc/propel/pkg/apis/apps/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

var created = metav1.NewTime(time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC))

func rebalancerOf(ttl *int32, workloads ...appsv1alpha1.ObjectReference) *appsv1alpha1.WorkloadRebalancer {
	return &appsv1alpha1.WorkloadRebalancer{
		ObjectMeta: metav1.ObjectMeta{Name: "wr", CreationTimestamp: created, Generation: 1},
		Spec:       appsv1alpha1.WorkloadRebalancerSpec{Workloads: workloads, TTLSecondsAfterFinished: ttl},
	}
}

func newRebalancer(c client.Client, now time.Time) *Reconciler {
	r := New(Deps{Client: c})
	r.now = func() time.Time { return now }
	return r
}

func reconcileWR(t *testing.T, r *Reconciler) (reconcile.Result, error) {
	t.Helper()
	return r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: "wr"}})
}

// TestTriggersBindingsAndRecordsResults: the binding of each workload gets
// rescheduleTriggeredAt (the rebalancer's creation), a missing one is
// recorded as not found, and the finish time is set.
func TestTriggersBindingsAndRecordsResults(t *testing.T) {
	ctx := context.Background()
	rb := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: names.BindingName("Deployment", "web")}}
	crb := &workv1alpha2.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: names.BindingName("ClusterRole", "reader")}}
	wr := rebalancerOf(nil,
		appsv1alpha1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "ns", Name: "web"},
		appsv1alpha1.ObjectReference{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "reader"},
		appsv1alpha1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "ns", Name: "gone"},
	)
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(wr, rb, crb).WithStatusSubresource(wr).Build()
	now := created.Add(time.Minute)
	if _, err := reconcileWR(t, newRebalancer(c, now)); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(rb), rb); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(crb), crb); err != nil {
		t.Fatal(err)
	}
	if rb.Spec.RescheduleTriggeredAt == nil || !rb.Spec.RescheduleTriggeredAt.Equal(&created) || crb.Spec.RescheduleTriggeredAt == nil {
		t.Errorf("rescheduleTriggeredAt: binding %v, cluster binding %v; want %v", rb.Spec.RescheduleTriggeredAt, crb.Spec.RescheduleTriggeredAt, created)
	}
	got := &appsv1alpha1.WorkloadRebalancer{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(wr), got); err != nil {
		t.Fatal(err)
	}
	results := map[string]string{}
	for _, o := range got.Status.ObservedWorkloads {
		results[o.Workload.Name] = string(o.Result) + "/" + string(o.Reason)
	}
	if results["web"] != "Successful/" || results["reader"] != "Successful/" || !strings.HasPrefix(results["gone"], "Failed/") {
		t.Errorf("results %v", results)
	}
	if got.Status.FinishTime == nil || !got.Status.FinishTime.Time.Equal(now) || got.Status.ObservedGeneration != 1 {
		t.Errorf("finish time %v, observed generation %d", got.Status.FinishTime, got.Status.ObservedGeneration)
	}
}

// TestDeletedAfterTTL: a finished rebalancer waits out its TTL, then goes.
func TestDeletedAfterTTL(t *testing.T) {
	wr := rebalancerOf(ptr.To[int32](60))
	finished := metav1.NewTime(created.Add(time.Minute))
	wr.Status.FinishTime = &finished
	wr.Status.ObservedGeneration = 1
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(wr).WithStatusSubresource(wr).Build()
	res, err := reconcileWR(t, newRebalancer(c, finished.Add(20*time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	if res.RequeueAfter != 40*time.Second {
		t.Errorf("requeue after %v, want the 40s left", res.RequeueAfter)
	}
	if _, err := reconcileWR(t, newRebalancer(c, finished.Add(61*time.Second))); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(wr), &appsv1alpha1.WorkloadRebalancer{}); err == nil {
		t.Error("the rebalancer outlived its TTL")
	}
}
