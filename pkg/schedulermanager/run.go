package schedulermanager

import (
	"context"
	"fmt"

	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/propel-mc/propel/pkg/apis"
	"github.com/propel-mc/propel/pkg/commandline"
	"github.com/propel-mc/propel/pkg/federatedquota/enforcement"
	"github.com/propel-mc/propel/pkg/scheduler"
	"github.com/propel-mc/propel/pkg/scheduler/estimator"
	"github.com/propel-mc/propel/pkg/scheduler/estimator/accurate"
)

// RBAC of propel-scheduler (the same role as the controller manager's, of
// which it needs a part): Events, and its leader-election Lease
// karmada-scheduler in karmada-system.
// +kubebuilder:rbac:groups=core;events.k8s.io,resources=events,verbs=create;patch;update
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=karmada-system,resources=leases,verbs=get;create;update

// Run starts propel-scheduler and blocks until ctx ends.
func Run(ctx context.Context, o *Options) error {
	o.warnInactive(ctrl.Log.WithName("scheduler"))
	mgr, err := Build(o)
	if err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// Build creates the manager with the scheduler, without starting it.
func Build(o *Options) (ctrl.Manager, error) {
	cfg, err := clientcmd.BuildConfigFromFlags(o.Master, o.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig %q: %w", o.Kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = o.KubeAPIQPS, o.KubeAPIBurst
	pprof := "0"
	if o.EnablePprof {
		pprof = o.ProfilingBindAddress
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                        apis.Scheme,
		Cache:                         cache.Options{DefaultTransform: cache.TransformStripManagedFields()},
		Metrics:                       metricsserver.Options{BindAddress: o.MetricsBindAddress},
		HealthProbeBindAddress:        o.HealthProbeBindAddress,
		PprofBindAddress:              pprof,
		LeaderElection:                o.LeaderElect,
		LeaderElectionID:              o.LeaderElectResourceName,
		LeaderElectionNamespace:       o.LeaderElectResourceNamespace,
		LeaseDuration:                 &o.LeaseDuration,
		RenewDeadline:                 &o.RenewDeadline,
		RetryPeriod:                   &o.RetryPeriod,
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		return nil, fmt.Errorf("create manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	var estimators []estimator.BatchEstimator
	if o.Estimator != nil && o.Estimator.Enabled {
		est := accurate.New(*o.Estimator, mgr.GetAPIReader(), ctrl.Log.WithName("scheduler-estimator"))
		if err := mgr.Add(est); err != nil {
			return nil, err
		}
		estimators = append(estimators, est)
	}
	s, err := scheduler.New(scheduler.Options{
		SchedulerName:                  o.SchedulerName,
		Plugins:                        o.Plugins,
		EnableEmptyWorkloadPropagation: o.EnableEmptyWorkloadPropagation,
		DisableResourceModels:          !o.FeatureGates.Enabled(commandline.CustomizedClusterResourceModeling),
		IgnorePriority:                 !o.FeatureGates.Enabled(commandline.PriorityBasedScheduling),
		Accurate:                       estimators,
		Quota:                          quotaAdmitter(o, mgr),
	})
	if err != nil {
		return nil, err
	}
	if err := s.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	return mgr, nil
}

// quotaAdmitter checks placements against FederatedResourceQuotas when the
// FederatedQuotaEnforcement gate is on: Karmada's karmada-webhook makes
// this check, so with the scheduler as its own process the gate goes on
// this binary where Karmada's layout has it on the webhook.
func quotaAdmitter(o *Options, mgr ctrl.Manager) scheduler.QuotaAdmitter {
	if !o.FeatureGates.Enabled(commandline.FederatedQuotaEnforcement) {
		return nil
	}
	return &enforcement.Admitter{Client: mgr.GetClient()}
}
