package managerbase

import (
	"fmt"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"

	"github.com/propel-mc/propel/pkg/apis"
)

// ManagerOptions are the controller-runtime options of a Propel manager.
func ManagerOptions(l LeaderElection, s Serving) ctrl.Options {
	return ctrl.Options{
		Scheme: apis.Scheme,
		// managedFields are never read; dropping them keeps the caches lean.
		Cache:                         cache.Options{DefaultTransform: cache.TransformStripManagedFields()},
		Metrics:                       s.MetricsOptions(),
		HealthProbeBindAddress:        s.HealthProbeBindAddress,
		PprofBindAddress:              s.PprofAddress(),
		LeaderElection:                l.LeaderElect,
		LeaderElectionID:              l.LeaderElectResourceName,
		LeaderElectionNamespace:       l.LeaderElectResourceNamespace,
		LeaseDuration:                 &l.LeaseDuration,
		RenewDeadline:                 &l.RenewDeadline,
		RetryPeriod:                   &l.RetryPeriod,
		LeaderElectionReleaseOnCancel: true,
	}
}

// NewManager creates the manager with ManagerOptions and the ping health
// and readiness checks.
func NewManager(cfg *rest.Config, l LeaderElection, s Serving) (ctrl.Manager, error) {
	mgr, err := ctrl.NewManager(cfg, ManagerOptions(l, s))
	if err != nil {
		return nil, fmt.Errorf("create manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, fmt.Errorf("add health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return nil, fmt.Errorf("add readiness check: %w", err)
	}
	return mgr, nil
}
