package controllermanager

import (
	"context"
	"fmt"

	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/propel-mc/propel/pkg/apis"
	"github.com/propel-mc/propel/pkg/index"
	"github.com/propel-mc/propel/pkg/membercluster"
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
	if limit > 0 {
		logger.Info("soft memory limit", "bytes", limit, "from", source)
	}
	if err := NewControllerRegistry().Validate(o.Controllers); err != nil {
		return err
	}
	o.warnInactive(logger)
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
	cfg, err := clientcmd.BuildConfigFromFlags("", o.Kubeconfig)
	if err != nil {
		return nil, nil, fmt.Errorf("load kubeconfig %q: %w", o.Kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = o.KubeAPIQPS, o.KubeAPIBurst
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: apis.Scheme,
		// managedFields are never read; dropping them keeps the caches lean.
		Cache:                         cache.Options{DefaultTransform: cache.TransformStripManagedFields()},
		Metrics:                       metricsOptions(o),
		HealthProbeBindAddress:        o.HealthProbeBindAddress,
		PprofBindAddress:              pprofAddress(o),
		LeaderElection:                o.LeaderElect,
		LeaderElectionID:              o.LeaderElectResourceName,
		LeaderElectionNamespace:       o.LeaderElectResourceNamespace,
		LeaseDuration:                 &o.LeaseDuration,
		RenewDeadline:                 &o.RenewDeadline,
		RetryPeriod:                   &o.RetryPeriod,
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("create manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, nil, err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return nil, nil, err
	}
	// Every field index, registered once before any controller (pkg/index).
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

// metricsOptions serves metrics on --metrics-bind-address, over HTTPS with
// controller-runtime's authentication and authorization filter when
// --metrics-secure is on.
func metricsOptions(o *Options) metricsserver.Options {
	opts := metricsserver.Options{BindAddress: o.MetricsBindAddress}
	if o.MetricsSecure {
		opts.SecureServing = true
		opts.FilterProvider = filters.WithAuthenticationAndAuthorization
		opts.CertDir = o.MetricsCertDir
	}
	return opts
}

// pprofAddress is where controller-runtime serves pprof; "0" turns it off.
func pprofAddress(o *Options) string {
	if !o.EnablePprof {
		return "0"
	}
	return o.ProfilingBindAddress
}
