// Package join registers a member cluster with the control plane, and
// removes it, the way `karmadactl join` and `karmadactl unjoin` do.
//
// Join creates in the member the karmada-cluster namespace, the
// impersonator's ServiceAccount, a cluster-admin ServiceAccount for the
// controllers and a non-expiring ServiceAccount token Secret for each;
// then in the control plane a Secret with the controllers' token and the
// member's CA bundle, a Secret with the impersonator's token, and a
// Push-mode Cluster referencing both with the member's cluster ID.
//
// Unjoin deletes the Cluster, waits for the controller manager to remove
// its execution namespace (and with it what was propagated to the member),
// and removes from the member what join created there.
package join

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// Join registers member as a Cluster of controlPlane and returns it. It
// refuses a name already registered and a member already registered under
// another name.
func Join(ctx context.Context, controlPlane, member *rest.Config, opts Options) (*clusterv1alpha1.Cluster, error) {
	opts = opts.withDefaults()
	cp, mc, clusterID, err := validateJoin(ctx, controlPlane, member, opts)
	if err != nil {
		return nil, err
	}
	if err := createMemberObjects(ctx, mc, memberObjects(opts)); err != nil {
		return nil, fmt.Errorf("join %s: %w", opts.Name, err)
	}
	kube, err := kubernetes.NewForConfig(member)
	if err != nil {
		return nil, fmt.Errorf("join %s: member client: %w", opts.Name, err)
	}
	creds, err := memberCredentials(ctx, mc, kube, opts)
	if err != nil {
		return nil, fmt.Errorf("join %s: member credentials: %w", opts.Name, err)
	}
	if len(creds.caBundle) == 0 {
		if creds.caBundle, err = caBundleOf(member); err != nil {
			return nil, fmt.Errorf("join %s: %w", opts.Name, err)
		}
	}
	objs, err := controlPlaneObjects(opts, member, clusterID, creds)
	if err != nil {
		return nil, fmt.Errorf("join %s: %w", opts.Name, err)
	}
	cluster, err := register(ctx, cp, objs)
	if err != nil {
		return nil, fmt.Errorf("join %s: %w", opts.Name, err)
	}
	return cluster, nil
}

// PlanJoin checks what Join checks (name, cluster ID not yet registered)
// and returns what it would create, creating nothing: --dry-run. Tokens
// are left empty.
func PlanJoin(ctx context.Context, controlPlane, member *rest.Config, opts Options) (*Plan, error) {
	opts = opts.withDefaults()
	_, _, clusterID, err := validateJoin(ctx, controlPlane, member, opts)
	if err != nil {
		return nil, err
	}
	objs, err := controlPlaneObjects(opts, member, clusterID, &credentials{})
	if err != nil {
		return nil, fmt.Errorf("join %s: %w", opts.Name, err)
	}
	return &Plan{Member: memberObjects(opts), ControlPlane: objs}, nil
}

func joinClients(controlPlane, member *rest.Config, opts Options) (cp, mc client.Client, err error) {
	if err := validateClusterName(opts.Name); err != nil {
		return nil, nil, fmt.Errorf("join: %w", err)
	}
	if cp, err = client.New(controlPlane, client.Options{Scheme: apis.Scheme}); err != nil {
		return nil, nil, fmt.Errorf("join %s: control plane client: %w", opts.Name, err)
	}
	if mc, err = client.New(member, client.Options{Scheme: apis.Scheme}); err != nil {
		return nil, nil, fmt.Errorf("join %s: member client: %w", opts.Name, err)
	}
	return cp, mc, nil
}

// validateJoin returns the clients of both clusters and the member's
// cluster ID once neither it nor the name is registered yet.
func validateJoin(ctx context.Context, controlPlane, member *rest.Config, opts Options) (cp, mc client.Client, clusterID string, err error) {
	if cp, mc, err = joinClients(controlPlane, member, opts); err != nil {
		return nil, nil, "", err
	}
	if clusterID, err = memberClusterID(ctx, mc); err != nil {
		return nil, nil, "", fmt.Errorf("join %s: %w", opts.Name, err)
	}
	if err := checkNotRegistered(ctx, cp, opts.Name, clusterID); err != nil {
		return nil, nil, "", fmt.Errorf("join %s: %w", opts.Name, err)
	}
	return cp, mc, clusterID, nil
}
