package crds_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/propel-mc/propel/internal/cli/localenv"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// TestClusterAcceptsKarmadaConditions: Karmada's served Cluster API does
// not validate status conditions, and clients (Karmada's e2e suite among
// them) write conditions with an empty reason and message; the Cluster CRD
// must accept them too.
func TestClusterAcceptsKarmadaConditions(t *testing.T) {
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	ctx := context.Background()
	c := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member1"},
		Spec: clusterv1alpha1.ClusterSpec{APIEndpoint: "https://member1.example", SyncMode: clusterv1alpha1.Push}}
	if err := env.Client.Create(ctx, c); err != nil {
		t.Fatal(err)
	}
	c.Status.Conditions = []metav1.Condition{{Type: "CustomCondition", Status: metav1.ConditionTrue, LastTransitionTime: metav1.Now()}}
	if err := env.Client.Status().Update(ctx, c); err != nil {
		t.Fatalf("a condition with an empty reason was refused: %v", err)
	}
}
