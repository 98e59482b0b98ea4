package harness

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	karmadaapiserver "github.com/propel-mc/propel/config/deploy/karmada-apiserver"
)

// ControllerManagerKubeconfig is the kubeconfig Propel's processes run
// with: the ServiceAccount karmada-system/propel-controller-manager, bound
// to the generated role, never the admin.
func (e *Env) ControllerManagerKubeconfig() string { return e.ControllerManager.Kubeconfig }

// ControllerManagerConfig is a copy of the rest config of the same
// identity, for the managers tests run in-process: Propel's controllers
// and scheduler get exactly the generated role, so a call it lacks fails
// the test. Tests acting as the user (creating templates and policies)
// keep Env.Client, the admin.
func (e *Env) ControllerManagerConfig() *rest.Config {
	return rest.CopyConfig(e.ControllerManager.Config)
}

// GrantTemplates lets Propel claim templates of groups outside the
// generated role's, write their status and scale them, as a user does for
// their CRDs' kinds (config/deploy/README.md). The ClusterRole carries the
// aggregation label the shipped role aggregates; it is also bound
// directly, since the test control plane runs no aggregation controller.
func (e *Env) GrantTemplates(ctx context.Context, name string, groups ...string) error {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "propel-templates-" + name, Labels: map[string]string{
			"propel.karmada.io/aggregate-to-controller-manager": "true",
		}},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: groups, Resources: []string{"*", "*/status"}, Verbs: []string{"update"}},
			{APIGroups: groups, Resources: []string{"*/scale"}, Verbs: []string{"get", "update"}},
		},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{
			Kind: rbacv1.ServiceAccountKind, Namespace: karmadaapiserver.ServiceAccountNamespace, Name: karmadaapiserver.ServiceAccountName,
		}},
	}
	if _, err := e.Kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("grant templates of %v: ClusterRole %s: %w", groups, role.Name, err)
	}
	if _, err := e.Kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("grant templates of %v: ClusterRoleBinding %s: %w", groups, binding.Name, err)
	}
	return nil
}
