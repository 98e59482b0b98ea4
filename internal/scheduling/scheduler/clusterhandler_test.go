package scheduler

import (
	"context"
	"sort"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func affinityRB(name string, a *policyv1alpha1.ClusterAffinity) *workv1alpha2.ResourceBinding {
	return &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{names.PropagationPolicyPermanentIDLabel: "p"}},
		Spec:       *st.Spec(1, &policyv1alpha1.Placement{ClusterAffinity: a}),
	}
}

func drain(q workqueue.TypedRateLimitingInterface[reconcile.Request]) []string {
	var out []string
	for q.Len() > 0 {
		item, _ := q.Get()
		out = append(out, item.Name)
		q.Done(item)
	}
	sort.Strings(out)
	return out
}

func TestClusterEventsRequeueAffectedBindings(t *testing.T) {
	onM1 := affinityRB("on-m1", &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"m1"}})
	onM2 := affinityRB("on-m2", &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"m2"}})
	anywhere := affinityRB("anywhere", nil)
	other := affinityRB("other", nil)
	other.Spec.SchedulerName = "other"
	crb := &workv1alpha2.ClusterResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "crb", Labels: map[string]string{names.ClusterPropagationPolicyPermanentIDLabel: "c"}},
		Spec:       *st.Spec(0, &policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}}),
	}
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.client = fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(onM1, onM2, anywhere, other, crb).Build()
	h := &clusterHandler{s: s}
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	ctx := context.Background()

	m1 := st.Cluster("m1")
	m1.Generation = 1
	tainted := m1.DeepCopy()
	tainted.Generation = 2
	h.Update(ctx, event.UpdateEvent{ObjectOld: m1, ObjectNew: tainted}, q)
	if got := drain(q); len(got) != 2 || got[0] != "anywhere" || got[1] != "on-m1" {
		t.Errorf("generation change of m1 requeued %v, want [anywhere on-m1]", got)
	}

	status := tainted.DeepCopy()
	status.Status.KubernetesVersion = "v2"
	h.Update(ctx, event.UpdateEvent{ObjectOld: tainted, ObjectNew: status}, q)
	if got := drain(q); len(got) != 0 {
		t.Errorf("status-only change requeued %v", got)
	}

	apis := status.DeepCopy()
	apis.Status.APIEnablements = append(apis.Status.APIEnablements, clusterv1alpha1.APIEnablement{GroupVersion: "example.io/v1", Resources: []clusterv1alpha1.APIResource{{Name: "widgets", Kind: "Widget"}}})
	h.Update(ctx, event.UpdateEvent{ObjectOld: status, ObjectNew: apis}, q)
	if got := drain(q); len(got) != 2 || got[0] != "anywhere" || got[1] != "on-m1" {
		t.Errorf("API enablements change of m1 requeued %v, want [anywhere on-m1]", got)
	}
	status = apis

	labelled := status.DeepCopy()
	labelled.Labels = map[string]string{"env": "prod"}
	h.Update(ctx, event.UpdateEvent{ObjectOld: status, ObjectNew: labelled}, q)
	if got := drain(q); len(got) != 3 || got[0] != "anywhere" || got[1] != "crb" || got[2] != "on-m1" {
		t.Errorf("label change requeued %v, want [anywhere crb on-m1]", got)
	}

	deleting := st.Cluster("m2")
	deleting.DeletionTimestamp = &metav1.Time{}
	h.Update(ctx, event.UpdateEvent{ObjectOld: st.Cluster("m2"), ObjectNew: deleting}, q)
	if got := drain(q); len(got) != 2 || got[0] != "anywhere" || got[1] != "on-m2" {
		t.Errorf("deletion of m2 requeued %v, want [anywhere on-m2]", got)
	}
}

func TestBindingEventsFilter(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := &bindingHandler{s: s}
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	ctx := context.Background()
	rb := affinityRB("rb", nil)
	rb.Generation = 1
	h.Create(ctx, event.CreateEvent{Object: rb}, q)
	statusOnly := rb.DeepCopy()
	statusOnly.Status.SchedulerObservedGeneration = 1
	h.Update(ctx, event.UpdateEvent{ObjectOld: rb, ObjectNew: statusOnly}, q)
	if got := drain(q); len(got) != 1 {
		t.Errorf("create plus status-only update queued %v, want one item", got)
	}
	bumped := rb.DeepCopy()
	bumped.Generation = 2
	h.Update(ctx, event.UpdateEvent{ObjectOld: rb, ObjectNew: bumped}, q)
	if got := drain(q); len(got) != 1 {
		t.Errorf("generation change queued %v, want one item", got)
	}
	unclaimed := rb.DeepCopy()
	unclaimed.Labels = nil
	h.Create(ctx, event.CreateEvent{Object: unclaimed}, q)
	if got := drain(q); len(got) != 0 {
		t.Errorf("unclaimed binding queued %v", got)
	}
}
