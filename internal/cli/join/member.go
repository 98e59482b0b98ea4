package join

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
)

// memberObjects are what join creates in the member, in order: the
// namespace, the impersonator's ServiceAccount, the controllers'
// ServiceAccount with its cluster-wide role and binding, and (unless
// tokens come from the TokenRequest API) a ServiceAccount token Secret for
// each ServiceAccount. Such a Secret's token has no expiry: it is valid
// for as long as the Secret and its ServiceAccount exist.
func memberObjects(o Options) []client.Object {
	ns, sa := o.ClusterNamespace, serviceAccountName(o.Name)
	role := clusterRoleName(o.Name)
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: systemLabels()}},
	}
	if !o.NoImpersonator {
		objs = append(objs, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: names.ImpersonatorName, Labels: systemLabels()}})
		if o.ExpiringTokenTTL == 0 {
			objs = append(objs, tokenSecret(ns, names.ImpersonatorName))
		}
	}
	objs = append(objs,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sa, Labels: systemLabels()}},
		&rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: role, Labels: systemLabels()},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{rbacv1.APIGroupAll}, Resources: []string{rbacv1.ResourceAll}, Verbs: []string{rbacv1.VerbAll}},
				{NonResourceURLs: []string{rbacv1.NonResourceAll}, Verbs: []string{"get"}},
			},
		},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: role, Labels: systemLabels()},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: sa}},
		},
	)
	if o.ExpiringTokenTTL == 0 {
		objs = append(objs, tokenSecret(ns, sa))
	}
	return objs
}

// tokenSecret asks the member's token controller for a non-expiring token
// of ServiceAccount namespace/name; karmadactl names it after the account.
func tokenSecret(namespace, name string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: namespace, Name: name, Labels: systemLabels(),
			Annotations: map[string]string{corev1.ServiceAccountNameKey: name},
		},
		Type: corev1.SecretTypeServiceAccountToken,
	}
}

// memberClusterID is the member's identity as Karmada records it in
// Cluster.spec.id: the UID of its kube-system namespace.
func memberClusterID(ctx context.Context, mc client.Client) (string, error) {
	ns := &corev1.Namespace{}
	if err := mc.Get(ctx, client.ObjectKey{Name: metav1.NamespaceSystem}, ns); err != nil {
		return "", fmt.Errorf("read the member's cluster ID (namespace %s): %w", metav1.NamespaceSystem, err)
	}
	return string(ns.UID), nil
}

// credentials are what the control plane needs to reach the member.
type credentials struct {
	token, caBundle, impersonatorToken []byte
}

// createMemberObjects creates objs in the member; existing ones are kept,
// so a join that failed half way can be run again.
func createMemberObjects(ctx context.Context, mc client.Client, objs []client.Object) error {
	for _, o := range objs {
		if err := mc.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create %s %s in the member: %w", kindOf(o), objectName(o), err)
		}
	}
	return nil
}

// memberCredentials reads the tokens of the ServiceAccounts join created:
// from their token Secrets once the member's token controller filled them
// in, or from the TokenRequest API with o.ExpiringTokenTTL.
func memberCredentials(ctx context.Context, mc client.Client, kube kubernetes.Interface, o Options) (*credentials, error) {
	var c credentials
	var err error
	sa := serviceAccountName(o.Name)
	if o.ExpiringTokenTTL > 0 {
		if c.token, err = requestToken(ctx, kube, o.ClusterNamespace, sa, o.ExpiringTokenTTL); err != nil {
			return nil, err
		}
		if !o.NoImpersonator {
			if c.impersonatorToken, err = requestToken(ctx, kube, o.ClusterNamespace, names.ImpersonatorName, o.ExpiringTokenTTL); err != nil {
				return nil, err
			}
		}
		return &c, nil
	}
	secret, err := waitForToken(ctx, mc, o.ClusterNamespace, sa, o.TokenWait)
	if err != nil {
		return nil, err
	}
	c.token, c.caBundle = secret.Data[corev1.ServiceAccountTokenKey], secret.Data[corev1.ServiceAccountRootCAKey]
	if !o.NoImpersonator {
		imp, err := waitForToken(ctx, mc, o.ClusterNamespace, names.ImpersonatorName, o.TokenWait)
		if err != nil {
			return nil, err
		}
		c.impersonatorToken = imp.Data[corev1.ServiceAccountTokenKey]
	}
	return &c, nil
}

// waitForToken polls the token Secret namespace/name until the member's
// token controller has put a token in it, for at most timeout.
func waitForToken(ctx context.Context, mc client.Client, namespace, name string, timeout time.Duration) (*corev1.Secret, error) {
	secret := &corev1.Secret{}
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		if err := mc.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, secret); err != nil {
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return false, err
		}
		return len(secret.Data[corev1.ServiceAccountTokenKey]) > 0, nil
	})
	if err != nil {
		return nil, fmt.Errorf("token Secret %s/%s in the member has no token after %s (does the member run kube-controller-manager's token controller?): %w",
			namespace, name, timeout, err)
	}
	return secret, nil
}

func requestToken(ctx context.Context, kube kubernetes.Interface, namespace, name string, ttl time.Duration) ([]byte, error) {
	tr, err := kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(ttl / time.Second))}}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("token for %s/%s: %w", namespace, name, err)
	}
	return []byte(tr.Status.Token), nil
}
