package controllermanager

import (
	"context"
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/propel-mc/propel/internal/app/managerbase"
	"github.com/propel-mc/propel/internal/shared/index"
	"github.com/propel-mc/propel/internal/shared/membercluster"
)

// RBAC of the manager itself: Events of every controller (namespaced
// objects' Events in their namespace, cluster-scoped ones' in default),
// the leader-election Lease in karmada-system (the default of
// --leader-elect-resource-namespace), and the secure metrics endpoint's
// authentication and authorization of scrapers.
// +kubebuilder:rbac:groups=core;events.k8s.io,resources=events,verbs=create;patch;update
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=karmada-system,resources=leases,verbs=get;create;update
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// Run starts the controller manager and blocks until ctx ends.
func Run(ctx context.Context, o *Options) error {
	limit, source, err := applySoftMemoryLimit(o.SoftMemoryLimit)
	if err != nil {
		return err
	}
	logger := ctrl.Log.WithName("controller-manager")
	percent, from := managerbase.ApplyGCPercent()
	logger.Info("garbage collector target", "percent", percent, "from", from)
	if limit > 0 {
		logger.Info("soft memory limit", "bytes", limit, "from", source)
	}
	if err := NewControllerRegistry().Validate(o.Controllers); err != nil {
		return err
	}
	o.WarnInactive(logger)
	mgr, _, err := Build(ctx, o)
	if err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// Build creates the manager with every enabled controller, without starting
// it (tests start it themselves).
func Build(ctx context.Context, o *Options) (ctrl.Manager, *Context, error) {
	registry := NewControllerRegistry()
	if err := registry.Validate(o.Controllers); err != nil {
		return nil, nil, err
	}
	if err := validateFailoverFlags(o); err != nil {
		return nil, nil, err
	}
	cfg, err := o.RESTConfig()
	if err != nil {
		return nil, nil, err
	}
	mgr, err := managerbase.NewManager(cfg, o.LeaderElection, o.Serving)
	if err != nil {
		return nil, nil, err
	}
	// Every field index, registered once before any controller (internal/shared/index).
	if err := index.AddDefaultIndexes(ctx, mgr); err != nil {
		return nil, nil, err
	}
	c := &Context{
		Manager:       mgr,
		Options:       o,
		MemberClients: membercluster.New(mgr.GetClient(), membercluster.Options{QPS: o.ClusterAPIQPS, Burst: o.ClusterAPIBurst, AllowHTTPEndpoints: o.AllowHTTPMemberEndpoints}),
	}
	if c.Interpreter, err = newInterpreter(c); err != nil {
		return nil, nil, err
	}
	for _, ctl := range registry.Controllers() {
		if !registry.Enabled(ctl.Name, o.Controllers) {
			continue
		}
		if err := ctl.Setup(ctx, c); err != nil {
			return nil, nil, fmt.Errorf("set up controller %s: %w", ctl.Name, err)
		}
		if !ctl.AlwaysOn {
			ctrl.Log.WithName("controller-manager").Info("controller enabled", "controller", ctl.Name)
		}
	}
	return mgr, c, nil
}
