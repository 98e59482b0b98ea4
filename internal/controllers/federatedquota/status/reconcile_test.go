package status

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// labelledQuotaWork is quotaWork labelled as the Work of quota ns/q.
func labelledQuotaWork(cluster string, applied bool, status string) *workv1alpha1.Work {
	w := quotaWork("karmada-es-"+cluster, applied, status)
	w.Labels = map[string]string{names.FederatedResourceQuotaNamespaceLabel: "ns", names.FederatedResourceQuotaNameLabel: "q"}
	return &w
}

func quotaAndWorks(overall string) (*policyv1alpha1.FederatedResourceQuota, []client.Object) {
	frq := &policyv1alpha1.FederatedResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q"},
		Spec:       policyv1alpha1.FederatedResourceQuotaSpec{Overall: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(overall)}},
	}
	other := labelledQuotaWork("member3", true, `{"hard":{"cpu":"9"},"used":{"cpu":"9"}}`)
	other.Labels[names.FederatedResourceQuotaNameLabel] = "other"
	return frq, []client.Object{frq,
		labelledQuotaWork("member2", true, `{"hard":{"cpu":"6"},"used":{"cpu":"1500m"}}`),
		labelledQuotaWork("member1", true, `{"hard":{"cpu":"4"},"used":{"cpu":"500m"}}`),
		labelledQuotaWork("member4", false, `{"hard":{"cpu":"1"},"used":{"cpu":"1"}}`),
		other,
	}
}

// TestReconcileAggregatesTheQuotaWorks: the quota's applied Works give
// status.aggregatedStatus per cluster; without enforcement the controller
// also sets overall from the spec and overallUsed as the members' sum,
// with enforcement it leaves those two to the enforcement controller.
func TestReconcileAggregatesTheQuotaWorks(t *testing.T) {
	for _, enforcement := range []bool{false, true} {
		frq, objs := quotaAndWorks("10")
		c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithStatusSubresource(frq).WithObjects(objs...).Build()
		events := record.NewFakeRecorder(5)
		r := New(Deps{Client: c, Recorder: events}, Options{Enforcement: enforcement})
		if _, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(frq)}); err != nil {
			t.Fatal(err)
		}
		got := &policyv1alpha1.FederatedResourceQuota{}
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(frq), got); err != nil {
			t.Fatal(err)
		}
		agg := got.Status.AggregatedStatus
		if len(agg) != 2 || agg[0].ClusterName != "member1" || agg[1].ClusterName != "member2" {
			t.Fatalf("enforcement=%v: aggregated %+v, want member1 and member2 (not the unapplied or the other quota's Work)", enforcement, agg)
		}
		used := got.Status.OverallUsed[corev1.ResourceCPU]
		if enforcement {
			if got.Status.Overall != nil || got.Status.OverallUsed != nil {
				t.Errorf("with enforcement the status controller wrote overall %v / used %v", got.Status.Overall, got.Status.OverallUsed)
			}
		} else if used.Cmp(resource.MustParse("2")) != 0 || got.Status.Overall.Cpu().Cmp(resource.MustParse("10")) != 0 {
			t.Errorf("overall %v used %v, want 10 and 2 (500m + 1500m)", got.Status.Overall, got.Status.OverallUsed)
		}
		if e := <-events.Events; !strings.Contains(e, EventReasonAggregateStatusSucceed) {
			t.Errorf("event %q", e)
		}
	}
}

// TestReconcileBadWorkStatusFails: a Work whose status is not a
// ResourceQuotaStatus fails the reconcile with a warning naming it, and
// the status is left alone.
func TestReconcileBadWorkStatusFails(t *testing.T) {
	frq, objs := quotaAndWorks("10")
	objs = append(objs, labelledQuotaWork("member5", true, `{"hard":"nope"}`))
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithStatusSubresource(frq).WithObjects(objs...).Build()
	events := record.NewFakeRecorder(5)
	_, err := New(Deps{Client: c, Recorder: events}, Options{}).Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(frq)})
	if err == nil || !strings.Contains(err.Error(), "karmada-es-member5") {
		t.Fatalf("error %v, want one naming the Work", err)
	}
	if e := <-events.Events; !strings.Contains(e, EventReasonAggregateStatusFailed) {
		t.Errorf("event %q", e)
	}
	got := &policyv1alpha1.FederatedResourceQuota{}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(frq), got); err != nil || got.Status.AggregatedStatus != nil {
		t.Errorf("status written on failure: %+v (%v)", got.Status, err)
	}
}

// TestWorkStatusPredicate: only a Work status change (or a deletion)
// brings the quota back.
func TestWorkStatusPredicate(t *testing.T) {
	p := quotaWorkStatusChanged()
	old := labelledQuotaWork("member1", true, `{"used":{"cpu":"1"}}`)
	relabelled := old.DeepCopy()
	relabelled.Labels["x"] = "y"
	changed := labelledQuotaWork("member1", true, `{"used":{"cpu":"2"}}`)
	if p.Create(event.CreateEvent{Object: old}) {
		t.Error("a created Work (no status yet) enqueues")
	}
	if p.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: relabelled}) {
		t.Error("a metadata-only update enqueues")
	}
	if !p.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: changed}) {
		t.Error("a status update does not enqueue")
	}
	if !p.Delete(event.DeleteEvent{Object: old}) {
		t.Error("a deleted Work does not enqueue")
	}
}
