package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// TestClusterPropagationPolicyClusterScoped: a ClusterRole selected by a
// ClusterPropagationPolicy goes through a ClusterResourceBinding to member1
// and member3 (and not member2).
func TestClusterPropagationPolicyClusterScoped(t *testing.T) {
	membersReady(t)
	// The shipped role writes no RBAC object; a user propagating them
	// grants it, as here.
	if err := env.GrantTemplates(context.Background(), "rbac", rbacv1.GroupName); err != nil {
		t.Fatal(err)
	}
	const name = "propel-e2e-reader"
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}}},
	}
	cpp := &policyv1alpha1.ClusterPropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-propagation"},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: name}},
			Placement:         policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1", "member3"}}},
		},
	}
	createAll(t, cpp, role)

	harness.Eventually(t, "ClusterResourceBinding scheduled to member1 and member3", func(ctx context.Context) (bool, error) {
		crb := &workv1alpha2.ClusterResourceBinding{}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: names.BindingName("ClusterRole", name)}, crb); err != nil {
			return false, err
		}
		got := map[string]bool{}
		for _, c := range crb.Spec.Clusters {
			got[c.Name] = true
		}
		if len(got) != 2 || !got["member1"] || !got["member3"] {
			return false, fmt.Errorf("clusters %+v", crb.Spec.Clusters)
		}
		return true, nil
	}, harness.LogsIn(env.LogDir))
	for _, member := range []string{"member1", "member3"} {
		harness.Eventually(t, "ClusterRole in "+member, func(ctx context.Context) (bool, error) {
			got := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}}
			if err := memberGet(ctx, member, got); err != nil {
				return false, err
			}
			return len(got.Rules) == 1 && got.Rules[0].Resources[0] == "pods", nil
		}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	}
	if gone, err := goneIn(context.Background(), "member2", &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil || !gone {
		t.Errorf("ClusterRole reached member2 (gone=%v, %v)", gone, err)
	}
}
