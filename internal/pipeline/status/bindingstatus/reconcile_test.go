package bindingstatus

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/pipeline/status/templatestatus"
	"github.com/propel-mc/propel/internal/shared/index"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

type recordedItems struct {
	items []workv1alpha2.AggregatedStatusItem
}

func (r *recordedItems) Sync(_ context.Context, _ workv1alpha2.ObjectReference, items []workv1alpha2.AggregatedStatusItem) (templatestatus.Result, error) {
	r.items = items
	return templatestatus.Updated, nil
}

type discardEvents struct{}

func (discardEvents) Event(runtime.Object, string, string, string) {}

// TestReconcileAggregatesAttachedBinding: the binding of a dependency
// (a Secret required by a Deployment's binding) is never scheduled, so it
// has no lastScheduledTime; its Work in the requiring binding's cluster
// still reports Applied into its aggregated status, as in Karmada.
func TestReconcileAggregatesAttachedBinding(t *testing.T) {
	const id = "0b6cf1a2-5b0e-4c39-9d2f-2a3f3e1c7a10"
	binding := &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nginx-secret",
			Labels: map[string]string{workv1alpha2.ResourceBindingPermanentIDLabel: id}},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource:   nginx,
			RequiredBy: []workv1alpha2.BindingSnapshot{{Namespace: "default", Name: "app-deployment", Clusters: []workv1alpha2.TargetCluster{{Name: "member1"}}}},
		},
	}
	w := work(t, "member1", appliedCond(metav1.ConditionTrue, ""))
	w.Labels = map[string]string{names.ResourceBindingPermanentIDLabel: id}
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(binding, &w).WithStatusSubresource(binding).
		WithIndex(&workv1alpha1.Work{}, index.WorkByResourceBindingID, index.ResourceBindingIDOfWork).Build()
	templates := &recordedItems{}
	r := NewResourceBinding(Deps{Client: c, Templates: templates, Recorder: discardEvents{}}, Options{})

	key := types.NamespacedName{Namespace: "default", Name: "nginx-secret"}
	if _, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: key}); err != nil {
		t.Fatal(err)
	}
	got := &workv1alpha2.ResourceBinding{}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(binding), got); err != nil {
		t.Fatal(err)
	}
	items := got.Status.AggregatedStatus
	if len(items) != 1 || items[0].ClusterName != "member1" || !items[0].Applied {
		t.Fatalf("aggregated status %+v: want member1 applied", items)
	}
	if !meta.IsStatusConditionTrue(got.Status.Conditions, workv1alpha2.FullyApplied) {
		t.Errorf("conditions %+v: want FullyApplied", got.Status.Conditions)
	}
	if len(templates.items) != 1 {
		t.Errorf("template synced with %d items, want 1", len(templates.items))
	}
}
