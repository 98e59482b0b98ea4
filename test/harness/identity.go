package harness

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/rest"

	karmadaapiserver "github.com/propel-mc/propel/config/deploy/karmada-apiserver"
	"github.com/propel-mc/propel/internal/cli/localenv"
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
// their CRDs' kinds (localenv.GrantTemplates).
func (e *Env) GrantTemplates(ctx context.Context, name string, groups ...string) error {
	subject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: karmadaapiserver.ServiceAccountNamespace, Name: karmadaapiserver.ServiceAccountName}
	return localenv.GrantTemplates(ctx, e.Kube, subject, name, groups...)
}
