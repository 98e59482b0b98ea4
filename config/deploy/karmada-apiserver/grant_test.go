package karmadaapiserver_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/test/harness"
)

// TestGrantTemplatesLetsPropelClaimRBACObjects: Propel's role refuses the
// claim of RBAC objects; once they are granted (as Karmada's suite needs:
// it propagates Roles, ClusterRoles and their bindings), Propel's identity
// claims a ClusterRole granting more than it holds and a binding to a role
// that does not exist, which the API server allows only with bind and
// escalate besides update.
func TestGrantTemplatesLetsPropelClaimRBACObjects(t *testing.T) {
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoJoin: true, NoControlPlaneControllers: true})
	self, err := kubernetes.NewForConfig(env.ControllerManager.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "system:test-clusterrole"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create", "delete"}}},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "test-binding"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "not-there"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "default", Name: "tom"}},
	}
	if _, err := env.Kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A claim is an update of the template's labels, as the detector's.
	claimRole := func() error {
		r, err := self.RbacV1().ClusterRoles().Get(ctx, role.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		r.Labels = map[string]string{"claimed": "yes"}
		_, err = self.RbacV1().ClusterRoles().Update(ctx, r, metav1.UpdateOptions{})
		return err
	}
	claimBinding := func() error {
		b, err := self.RbacV1().ClusterRoleBindings().Get(ctx, binding.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		b.Labels = map[string]string{"claimed": "yes"}
		_, err = self.RbacV1().ClusterRoleBindings().Update(ctx, b, metav1.UpdateOptions{})
		return err
	}
	if err := claimRole(); !apierrors.IsForbidden(err) {
		t.Fatalf("claim of a ClusterRole before the grant: want Forbidden, got %v", err)
	}
	if err := env.GrantTemplates(ctx, "rbac", rbacv1.GroupName); err != nil {
		t.Fatal(err)
	}
	for what, claim := range map[string]func() error{"ClusterRole " + role.Name: claimRole, "ClusterRoleBinding " + binding.Name: claimBinding} {
		var last error
		if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			last = claim()
			return last == nil, nil
		}); err != nil {
			t.Errorf("claim of %s after the grant: %v", what, last)
		}
	}
	// The grant covers the groups asked for, not others.
	if _, err := self.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}}, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("create of a Secret after the grant: want Forbidden, got %v", err)
	}
}
