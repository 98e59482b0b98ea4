package remedy

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	remedyv1alpha1 "github.com/propel-mc/propel/pkg/apis/remedy/v1alpha1"
)

func reconcileCluster(t *testing.T, c client.Client) []string {
	t.Helper()
	if _, err := New(Deps{Client: c}).Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: "member1"}}); err != nil {
		t.Fatal(err)
	}
	got := &clusterv1alpha1.Cluster{}
	if err := c.Get(context.Background(), types.NamespacedName{Name: "member1"}, got); err != nil {
		t.Fatal(err)
	}
	return got.Status.RemedyActions
}

// TestReconcileWritesAndClearsActions: the cluster's remedyActions follow
// the Remedies whose decision matches its conditions, and go when none
// matches any more.
func TestReconcileWritesAndClearsActions(t *testing.T) {
	cluster := &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "member1"},
		Status: clusterv1alpha1.ClusterStatus{Conditions: []metav1.Condition{{
			Type: string(remedyv1alpha1.ServiceDomainNameResolutionReady), Status: metav1.ConditionFalse, Reason: "Failed", LastTransitionTime: metav1.Now(),
		}}},
	}
	rm := &remedyv1alpha1.Remedy{
		ObjectMeta: metav1.ObjectMeta{Name: "dns"},
		Spec: remedyv1alpha1.RemedySpec{
			DecisionMatches: []remedyv1alpha1.DecisionMatch{dnsMatch("Equal", "False")},
			Actions:         []remedyv1alpha1.RemedyAction{"TrafficControl"},
		},
	}
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(cluster, rm).WithStatusSubresource(cluster).Build()
	if got := reconcileCluster(t, c); len(got) != 1 || got[0] != "TrafficControl" {
		t.Fatalf("remedyActions = %v, want [TrafficControl]", got)
	}
	if err := c.Delete(context.Background(), rm); err != nil {
		t.Fatal(err)
	}
	if got := reconcileCluster(t, c); len(got) != 0 {
		t.Errorf("remedyActions = %v after the Remedy went, want none", got)
	}
}
