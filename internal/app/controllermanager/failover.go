package controllermanager

import (
	"context"
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/controllers/cluster/taintpolicy"
	"github.com/propel-mc/propel/internal/controllers/failover/gracefuleviction"
	"github.com/propel-mc/propel/internal/controllers/failover/taintmanager"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// setupClusterTaintPolicy starts the cluster-taint-policy controller when
// the Failover gate is on (Karmada's "clustertaintpolicy").
func setupClusterTaintPolicy(_ context.Context, c *Context) error {
	if !c.Options.FeatureGates.Enabled(commandline.Failover) {
		ctrl.Log.WithName("controller-manager").Info("cluster taint policy controller disabled", "featureGate", commandline.Failover)
		return nil
	}
	return taintpolicy.New().SetupWithManager(c.Manager)
}

// setupTaintManager starts the taint manager when the Failover gate and
// --enable-taint-manager are both on.
func setupTaintManager(_ context.Context, c *Context) error {
	o := c.Options
	if !o.FeatureGates.Enabled(commandline.Failover) || !o.EnableTaintManager {
		ctrl.Log.WithName("controller-manager").Info("taint manager disabled", "featureGate", commandline.Failover,
			"enableTaintManager", o.EnableTaintManager)
		return nil
	}
	return taintmanager.New(taintmanager.Options{
		EnableEviction: o.EnableNoExecuteTaintEviction, PurgeMode: policyv1alpha1.PurgeMode(o.NoExecuteTaintEvictionPurgeMode),
		EvictionRate: o.ResourceEvictionRate, StatePreservation: o.FeatureGates.Enabled(commandline.StatefulFailoverInjection),
	}).SetupWithManager(c.Manager)
}

// setupGracefulEviction starts the graceful-eviction controllers (RB and
// CRB; Karmada's "gracefulEviction", on whatever the gates say).
func setupGracefulEviction(_ context.Context, c *Context) error {
	return gracefuleviction.SetupWithManager(c.Manager, gracefuleviction.Options{
		Timeout: c.Options.GracefulEvictionTimeout, Workers: c.Options.ConcurrentBindingSyncs,
	})
}

// validateFailoverFlags rejects the failover and cluster-monitor flag
// values Karmada rejects.
func validateFailoverFlags(o *Options) error {
	for _, d := range []struct {
		name string
		v    interface{ Seconds() float64 }
	}{
		{"--cluster-monitor-period", o.ClusterMonitorPeriod},
		{"--cluster-monitor-grace-period", o.ClusterMonitorGracePeriod},
		{"--cluster-startup-grace-period", o.ClusterStartupGracePeriod},
	} {
		if d.v.Seconds() <= 0 {
			return fmt.Errorf("%s must be greater than 0", d.name)
		}
	}
	if o.ResourceEvictionRate < 0 {
		return fmt.Errorf("--resource-eviction-rate must not be negative, got %v", o.ResourceEvictionRate)
	}
	if o.EnableNoExecuteTaintEviction {
		switch policyv1alpha1.PurgeMode(o.NoExecuteTaintEvictionPurgeMode) {
		case policyv1alpha1.PurgeModeGracefully, policyv1alpha1.PurgeModeDirectly:
		default:
			return fmt.Errorf("--no-execute-taint-eviction-purge-mode: %q is not Gracefully or Directly", o.NoExecuteTaintEvictionPurgeMode)
		}
	}
	return nil
}
