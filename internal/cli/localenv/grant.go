package localenv

import (
	"context"
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// AggregateToControllerManagerLabel aggregates a ClusterRole into the one
// propel-controller-manager is bound to (config/deploy/karmada-apiserver).
const AggregateToControllerManagerLabel = "propel.karmada.io/aggregate-to-controller-manager"

// TemplatesRole is the ClusterRole "propel-templates-<name>" that lets
// Propel claim templates of groups ("*" for every group), write their
// status and scale them, as a user grants it for their CRDs' kinds
// (config/deploy/README.md). When the groups cover RBAC objects it also
// grants bind and escalate on roles: the API server refuses an update of a
// role, or of a binding, that grants more than the updater holds, and a
// claim is such an update.
func TemplatesRole(name string, groups ...string) *rbacv1.ClusterRole {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "propel-templates-" + name, Labels: map[string]string{AggregateToControllerManagerLabel: "true"}},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: groups, Resources: []string{"*", "*/status"}, Verbs: []string{"update"}},
			{APIGroups: groups, Resources: []string{"*/scale"}, Verbs: []string{"get", "update"}},
		},
	}
	if slices.Contains(groups, rbacv1.APIGroupAll) || slices.Contains(groups, rbacv1.GroupName) {
		role.Rules = append(role.Rules, rbacv1.PolicyRule{
			APIGroups: []string{rbacv1.GroupName}, Resources: []string{"roles", "clusterroles"}, Verbs: []string{"bind", "escalate"},
		})
	}
	return role
}

// GrantTemplates creates TemplatesRole(name, groups) and binds it to
// subject directly as well, so the grant holds at once (and on a control
// plane that runs no ClusterRole aggregation).
func GrantTemplates(ctx context.Context, kube kubernetes.Interface, subject rbacv1.Subject, name string, groups ...string) error {
	role := TemplatesRole(name, groups...)
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{subject},
	}
	if _, err := kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("grant templates of %v: ClusterRole %s: %w", groups, role.Name, err)
	}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("grant templates of %v: ClusterRoleBinding %s: %w", groups, binding.Name, err)
	}
	return nil
}
