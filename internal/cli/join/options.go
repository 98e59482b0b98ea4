package join

import (
	"time"

	"github.com/propel-mc/propel/internal/shared/names"
)

// DefaultTokenWait is how long join waits for the member's token
// controller to fill in a ServiceAccount token Secret, as karmadactl does.
const DefaultTokenWait = 30 * time.Second

// Options describes the member being joined.
type Options struct {
	// Name of the Cluster object.
	Name string
	// ClusterNamespace holds the credentials, in the member and in the
	// control plane; default karmada-cluster.
	ClusterNamespace string
	// Provider, Region and Zones are copied to the Cluster spec for
	// scheduling by topology.
	Provider, Region string
	Zones            []string
	// TokenWait bounds the wait for the member's token controller
	// (kube-controller-manager) to populate the token Secrets; default
	// DefaultTokenWait.
	TokenWait time.Duration
	// ExpiringTokenTTL, when set, takes the tokens from the TokenRequest
	// API with this lifetime instead of ServiceAccount token Secrets. It is
	// for members without a token controller (bare API servers in test
	// environments); such a Cluster goes NotReady once the token expires.
	ExpiringTokenTTL time.Duration
	// NoImpersonator registers the Cluster without an impersonator, which
	// disables unified auth for it (test environments that count Works).
	NoImpersonator bool
}

func (o Options) withDefaults() Options {
	if o.ClusterNamespace == "" {
		o.ClusterNamespace = names.ClusterNamespace
	}
	if o.TokenWait <= 0 {
		o.TokenWait = DefaultTokenWait
	}
	return o
}

// DefaultUnjoinWait is how long unjoin waits for the controller manager to
// clean up after the deleted Cluster, as karmadactl's --wait default.
const DefaultUnjoinWait = 60 * time.Second

// UnjoinOptions describes the member being removed.
type UnjoinOptions struct {
	// Name of the Cluster object.
	Name string
	// ClusterNamespace is where join put the credentials; default
	// karmada-cluster.
	ClusterNamespace string
	// Wait bounds the wait for the Cluster and its execution namespace to
	// be removed; default DefaultUnjoinWait.
	Wait time.Duration
	// Force, when the wait times out, strips the finalizers of the
	// Cluster and of the Works in its execution namespace so the Cluster
	// goes anyway, and makes failures to clean up the member warnings.
	// What was propagated to the member may then stay there.
	Force bool
	// PollInterval is how often the wait looks; default one second.
	PollInterval time.Duration
}

func (o UnjoinOptions) withDefaults() UnjoinOptions {
	if o.ClusterNamespace == "" {
		o.ClusterNamespace = names.ClusterNamespace
	}
	if o.Wait <= 0 {
		o.Wait = DefaultUnjoinWait
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	return o
}
