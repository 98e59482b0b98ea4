package join

import (
	"context"
	"errors"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// controlPlaneObjects are what join creates in the control plane, in
// order: the credentials namespace, the Secret with the controllers' token
// and the member's CA bundle, the impersonator's token Secret, and the
// Push-mode Cluster referencing both with the member's cluster ID.
func controlPlaneObjects(o Options, member *rest.Config, clusterID string, c *credentials) ([]client.Object, error) {
	ns := o.ClusterNamespace
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: o.Name, Labels: systemLabels()},
		Data:       map[string][]byte{secretTokenKey: c.token, secretCADataKey: c.caBundle},
	}
	cluster := &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: o.Name},
		Spec: clusterv1alpha1.ClusterSpec{
			ID:                          clusterID,
			SyncMode:                    clusterv1alpha1.Push,
			APIEndpoint:                 member.Host,
			SecretRef:                   &clusterv1alpha1.LocalSecretReference{Namespace: ns, Name: secret.Name},
			InsecureSkipTLSVerification: member.Insecure,
			Provider:                    o.Provider,
			Region:                      o.Region,
			Zones:                       o.Zones,
		},
	}
	if member.Proxy != nil {
		u, err := member.Proxy(nil)
		if err != nil {
			return nil, fmt.Errorf("proxy of the member kubeconfig: %w", err)
		}
		if u != nil {
			cluster.Spec.ProxyURL = u.String()
		}
	}
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: systemLabels()}},
		secret,
	}
	if !o.NoImpersonator {
		imp := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: impersonatorSecretName(o.Name), Labels: systemLabels()},
			Data:       map[string][]byte{secretTokenKey: c.impersonatorToken},
		}
		cluster.Spec.ImpersonatorSecretRef = &clusterv1alpha1.LocalSecretReference{Namespace: ns, Name: imp.Name}
		objs = append(objs, imp)
	}
	return append(objs, cluster), nil
}

// ErrAlreadyJoined is the refusal to join a member that is already
// registered under the same name: nothing is left to do, and a caller
// that only wants the member joined (local-up restarting on its saved
// state) goes on.
var ErrAlreadyJoined = errors.New("already joined")

// checkNotRegistered refuses a name that is taken and a member that is
// already registered under another name (Karmada's cluster ID check).
func checkNotRegistered(ctx context.Context, cp client.Client, name, clusterID string) error {
	list := &clusterv1alpha1.ClusterList{}
	if err := cp.List(ctx, list); err != nil {
		return fmt.Errorf("list Clusters: %w", err)
	}
	for i := range list.Items {
		c := &list.Items[i]
		// A Cluster without an ID was registered before IDs were
		// recorded (by an older join): taken as this member's too.
		if c.Name == name && clusterID != "" && (c.Spec.ID == clusterID || c.Spec.ID == "") {
			return fmt.Errorf("cluster %s is already registered for this member (cluster ID %s): %w", name, clusterID, ErrAlreadyJoined)
		}
		if c.Name == name {
			return fmt.Errorf("cluster %s is already registered (Cluster %s exists; unjoin it first)", name, c.Name)
		}
		if clusterID != "" && c.Spec.ID == clusterID {
			return fmt.Errorf("the member's cluster ID %s (UID of its kube-system namespace) is already registered as Cluster %s; a member joins once", clusterID, c.Name)
		}
	}
	return nil
}

// register creates objs in the control plane; Secrets left by an earlier,
// failed join are overwritten. The Secrets are then owned by the Cluster,
// so that deleting the Cluster collects them.
func register(ctx context.Context, cp client.Client, objs []client.Object) (*clusterv1alpha1.Cluster, error) {
	var cluster *clusterv1alpha1.Cluster
	var secrets []*corev1.Secret
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.Namespace:
			if err := cp.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
				return nil, fmt.Errorf("create namespace %s: %w", o.Name, err)
			}
		case *corev1.Secret:
			want := o.DeepCopy()
			if _, err := controllerutil.CreateOrUpdate(ctx, cp, o, func() error {
				o.Labels, o.Data = want.Labels, want.Data
				return nil
			}); err != nil {
				return nil, fmt.Errorf("write Secret %s: %w", objectName(o), err)
			}
			secrets = append(secrets, o)
		case *clusterv1alpha1.Cluster:
			if err := cp.Create(ctx, o); err != nil {
				return nil, fmt.Errorf("create Cluster %s: %w", o.Name, err)
			}
			cluster = o
		default:
			return nil, fmt.Errorf("unexpected %s %s in the control plane plan", kindOf(o), objectName(o))
		}
	}
	if cluster == nil {
		return nil, fmt.Errorf("the control plane plan has no Cluster")
	}
	for _, s := range secrets {
		patch := client.MergeFrom(s.DeepCopy())
		if err := controllerutil.SetControllerReference(cluster, s, cp.Scheme()); err != nil {
			return nil, fmt.Errorf("owner Cluster %[2]s of Secret %[1]s: %[3]w", objectName(s), cluster.Name, err)
		}
		if err := cp.Patch(ctx, s, patch); err != nil {
			return nil, fmt.Errorf("set owner Cluster %[2]s of Secret %[1]s: %[3]w", objectName(s), cluster.Name, err)
		}
	}
	return cluster, nil
}

// caBundleOf is the CA the member's kubeconfig trusts, used when the
// token came without one.
func caBundleOf(cfg *rest.Config) ([]byte, error) {
	if len(cfg.CAData) > 0 {
		return cfg.CAData, nil
	}
	if cfg.CAFile != "" {
		b, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("member CA file: %w", err)
		}
		return b, nil
	}
	return nil, nil
}
