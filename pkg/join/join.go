// Package join registers a member cluster with the control plane the way
// `karmadactl join` does: a cluster-admin ServiceAccount in the member, a
// Secret with its token and the member's CA bundle in the control plane's
// karmada-cluster namespace, and a Push-mode Cluster object pointing at both.
package join

import (
	"context"
	"fmt"
	"os"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	"github.com/propel-mc/propel/pkg/names"
)

// Options describes the member being joined.
type Options struct {
	// Name of the Cluster object.
	Name string
	// Provider, Region and Zones are copied to the Cluster spec for
	// scheduling by topology.
	Provider, Region string
	Zones            []string
	// TokenTTL bounds the ServiceAccount token; default one year.
	TokenTTL int64
}

// Join registers member as a Cluster of controlPlane and returns it.
func Join(ctx context.Context, controlPlane, member *rest.Config, opts Options) (*clusterv1alpha1.Cluster, error) {
	if opts.Name == "" {
		return nil, fmt.Errorf("join: cluster name is required")
	}
	caBundle, err := caBundleOf(member)
	if err != nil {
		return nil, fmt.Errorf("join %s: %w", opts.Name, err)
	}
	token, err := memberToken(ctx, member, opts)
	if err != nil {
		return nil, fmt.Errorf("join %s: member credentials: %w", opts.Name, err)
	}
	cp, err := client.New(controlPlane, client.Options{Scheme: apis.Scheme})
	if err != nil {
		return nil, err
	}
	if err := ensureNamespace(ctx, cp, names.ClusterNamespace); err != nil {
		return nil, fmt.Errorf("join %s: %w", opts.Name, err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: names.ClusterNamespace, Name: opts.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, cp, secret, func() error {
		secret.Data = map[string][]byte{"token": []byte(token), "caBundle": caBundle}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("join %s: secret: %w", opts.Name, err)
	}
	cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: opts.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, cp, cluster, func() error {
		cluster.Spec.SyncMode = clusterv1alpha1.Push
		cluster.Spec.APIEndpoint = member.Host
		cluster.Spec.SecretRef = &clusterv1alpha1.LocalSecretReference{Namespace: names.ClusterNamespace, Name: opts.Name}
		cluster.Spec.Provider, cluster.Spec.Region, cluster.Spec.Zones = opts.Provider, opts.Region, opts.Zones
		return nil
	}); err != nil {
		return nil, fmt.Errorf("join %s: cluster: %w", opts.Name, err)
	}
	return cluster, nil
}

// Unjoin deletes the Cluster and its Secret from the control plane. What
// was propagated to the member stays there.
func Unjoin(ctx context.Context, controlPlane *rest.Config, name string) error {
	cp, err := client.New(controlPlane, client.Options{Scheme: apis.Scheme})
	if err != nil {
		return err
	}
	for _, obj := range []client.Object{
		&clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: names.ClusterNamespace, Name: name}},
	} {
		if err := cp.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("unjoin %s: %w", name, err)
		}
	}
	return nil
}

// serviceAccountName is karmadactl's name for the member-side identity.
func serviceAccountName(cluster string) string { return "karmada-" + cluster }

// memberToken creates, in the member, a ServiceAccount bound to a
// cluster-wide role and returns a token for it from the TokenRequest API
// (which works without kube-controller-manager).
func memberToken(ctx context.Context, member *rest.Config, opts Options) (string, error) {
	kube, err := kubernetes.NewForConfig(member)
	if err != nil {
		return "", err
	}
	mc, err := client.New(member, client.Options{Scheme: apis.Scheme})
	if err != nil {
		return "", err
	}
	if err := ensureNamespace(ctx, mc, names.ClusterNamespace); err != nil {
		return "", err
	}
	sa := serviceAccountName(opts.Name)
	role := "karmada-controller-manager:" + sa
	objs := []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: names.ClusterNamespace, Name: sa}},
		&rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: role},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}},
				{NonResourceURLs: []string{"*"}, Verbs: []string{"get"}},
			},
		},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: role},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: names.ClusterNamespace, Name: sa}},
		},
	}
	for _, o := range objs {
		if err := mc.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", fmt.Errorf("create %T %s: %w", o, o.GetName(), err)
		}
	}
	ttl := opts.TokenTTL
	if ttl == 0 {
		ttl = 365 * 24 * 3600
	}
	tr, err := kube.CoreV1().ServiceAccounts(names.ClusterNamespace).CreateToken(ctx, sa,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(ttl)}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token for %s/%s: %w", names.ClusterNamespace, sa, err)
	}
	return tr.Status.Token, nil
}

func ensureNamespace(ctx context.Context, c client.Client, name string) error {
	err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("namespace %s: %w", name, err)
	}
	return nil
}

func caBundleOf(cfg *rest.Config) ([]byte, error) {
	if len(cfg.CAData) > 0 {
		return cfg.CAData, nil
	}
	if cfg.CAFile != "" {
		return os.ReadFile(cfg.CAFile)
	}
	return nil, fmt.Errorf("member config has no CA bundle")
}
