package schedulermanager

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/propel-mc/propel/internal/app/managerbase"
)

// RBAC of propel-scheduler (the same role as the controller manager's, of
// which it needs a part): Events, and its leader-election Lease
// karmada-scheduler in karmada-system.
// +kubebuilder:rbac:groups=core;events.k8s.io,resources=events,verbs=create;patch;update
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=karmada-system,resources=leases,verbs=get;create;update

// Run starts propel-scheduler and blocks until ctx ends.
func Run(ctx context.Context, o *Options) error {
	logger := ctrl.Log.WithName("scheduler")
	percent, from := managerbase.ApplyGCPercent()
	logger.Info("garbage collector target", "percent", percent, "from", from)
	o.WarnInactive(logger)
	mgr, err := Build(o)
	if err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// Build creates the manager with the scheduler, without starting it.
func Build(o *Options) (ctrl.Manager, error) {
	cfg, err := o.RESTConfig()
	if err != nil {
		return nil, err
	}
	mgr, err := managerbase.NewManager(cfg, o.LeaderElection, o.Serving)
	if err != nil {
		return nil, err
	}
	if err := SetupScheduler(mgr, o.Scheduling, o.FeatureGates); err != nil {
		return nil, err
	}
	return mgr, nil
}
