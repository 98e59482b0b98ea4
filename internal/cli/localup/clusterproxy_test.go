package localup

import (
	"context"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/propel-mc/propel/internal/cli/localenv"
)

// TestGrantClusterProxyBindsTheAdmin: after the grant, a ClusterRoleBinding
// binds the admin user to a ClusterRole whose rule covers
// cluster.karmada.io clusters/proxy of every cluster (no resourceNames),
// which is what the unified-auth controller looks for to let a member's
// impersonator impersonate the admin. Granting twice (a restart on saved
// state) succeeds.
func TestGrantClusterProxyBindsTheAdmin(t *testing.T) {
	ctx := context.Background()
	kube := fake.NewSimpleClientset()
	for range 2 {
		if err := grantClusterProxy(ctx, kube, localenv.AdminUser); err != nil {
			t.Fatal(err)
		}
	}
	bindings, err := kube.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bindings.Items {
		if !slices.Contains(b.Subjects, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: localenv.AdminUser}) {
			continue
		}
		role, err := kube.RbacV1().ClusterRoles().Get(ctx, b.RoleRef.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("binding %s: %v", b.Name, err)
		}
		for _, r := range role.Rules {
			if slices.Contains(r.APIGroups, "cluster.karmada.io") && slices.Contains(r.Resources, "clusters/proxy") && len(r.ResourceNames) == 0 {
				return
			}
		}
	}
	t.Fatalf("no ClusterRoleBinding grants %s clusters/proxy of every cluster; bindings: %+v", localenv.AdminUser, bindings.Items)
}
