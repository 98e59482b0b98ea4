package localup

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// clusterProxyAdmin names the ClusterRole and ClusterRoleBinding that let
// the admin reach every member through the cluster proxy, as Karmada's
// installers grant their admin user.
const clusterProxyAdmin = "cluster-proxy-admin"

// grantClusterProxy lets user reach every member through
// karmada-aggregated-apiserver's cluster proxy (cluster.karmada.io
// clusters/proxy). The proxy impersonates the caller on the member with
// the Cluster's impersonator token, and the unified-auth controller lets
// the impersonator impersonate only the subjects bound to that resource:
// without the grant the admin, though in system:masters, is refused on
// every member (karmadactl get, describe, logs, exec, top and promote of
// a member's objects).
func grantClusterProxy(ctx context.Context, kube kubernetes.Interface, user string) error {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: clusterProxyAdmin},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"cluster.karmada.io"}, Resources: []string{"clusters/proxy"}, Verbs: []string{rbacv1.VerbAll}}},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: clusterProxyAdmin},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
	}
	if _, err := kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("grant %s the cluster proxy: ClusterRole %s: %w", user, role.Name, err)
	}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("grant %s the cluster proxy: ClusterRoleBinding %s: %w", user, binding.Name, err)
	}
	return nil
}
