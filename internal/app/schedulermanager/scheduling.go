package schedulermanager

import (
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/component-base/featuregate"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/controllers/federatedquota/enforcement"
	"github.com/propel-mc/propel/internal/scheduling/scheduler"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/estimator"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/estimator/accurate"
)

// Scheduling are the scheduler's options, the same for propel-scheduler
// and for the controller manager's in-process scheduler: both build their
// scheduler with SetupScheduler from them.
type Scheduling struct {
	SchedulerName                  string
	Plugins                        []string
	EnableEmptyWorkloadPropagation bool
	// Estimator is --enable-scheduler-estimator and its flags.
	Estimator *accurate.Options
}

// NewScheduling returns karmada-scheduler's defaults.
func NewScheduling() Scheduling {
	return Scheduling{SchedulerName: "default-scheduler", Estimator: accurate.NewOptions()}
}

// SchedulingFlags say how Scheduling.AddFlags describes the flags.
type SchedulingFlags struct {
	// SchedulerNameHelp is the help of --scheduler-name.
	SchedulerNameHelp string
	// Plugins registers --plugins and --enable-empty-workload-propagation
	// (karmada-scheduler's flags; karmada-controller-manager has neither,
	// so the in-process scheduler keeps their defaults).
	Plugins bool
}

// AddFlags registers the scheduler's flags on fs.
func (s *Scheduling) AddFlags(fs *pflag.FlagSet, f SchedulingFlags) {
	fs.StringVar(&s.SchedulerName, "scheduler-name", s.SchedulerName, f.SchedulerNameHelp)
	if f.Plugins {
		fs.StringSliceVar(&s.Plugins, "plugins", s.Plugins, "Scheduler plugins: '*' all, 'Name' enables, '-Name' disables.")
		fs.BoolVar(&s.EnableEmptyWorkloadPropagation, "enable-empty-workload-propagation", s.EnableEmptyWorkloadPropagation, "Keep selected clusters that get 0 replicas in the result.")
	}
	if s.Estimator == nil {
		s.Estimator = accurate.NewOptions()
	}
	s.Estimator.AddFlags(fs)
}

// SchedulerOptions are the options of the scheduler built from s and the
// feature gates, with the accurate estimators given and the quota check
// of c's FederatedResourceQuotas when the FederatedQuotaEnforcement gate
// is on: Karmada's karmada-webhook makes this check, so the gate goes on
// the scheduler's process where Karmada's layout has it on the webhook.
func SchedulerOptions(s Scheduling, gates featuregate.FeatureGate, c client.Client, estimators []estimator.BatchEstimator) scheduler.Options {
	o := scheduler.Options{
		SchedulerName:                  s.SchedulerName,
		Plugins:                        s.Plugins,
		EnableEmptyWorkloadPropagation: s.EnableEmptyWorkloadPropagation,
		DisableResourceModels:          !gates.Enabled(commandline.CustomizedClusterResourceModeling),
		IgnorePriority:                 !gates.Enabled(commandline.PriorityBasedScheduling),
		WorkloadAffinity:               gates.Enabled(commandline.WorkloadAffinity),
		OvercommitProtection:           gates.Enabled(commandline.SchedulingOvercommitProtection),
		Accurate:                       estimators,
	}
	if gates.Enabled(commandline.FederatedQuotaEnforcement) {
		o.Quota = &enforcement.Admitter{Client: c}
	}
	return o
}

// SetupScheduler adds the scheduler to mgr, with the accurate estimator
// when --enable-scheduler-estimator is on.
func SetupScheduler(mgr manager.Manager, s Scheduling, gates featuregate.FeatureGate) error {
	var estimators []estimator.BatchEstimator
	if s.Estimator != nil && s.Estimator.Enabled {
		est := accurate.New(*s.Estimator, mgr.GetAPIReader(), ctrl.Log.WithName("scheduler-estimator"))
		if err := mgr.Add(est); err != nil {
			return fmt.Errorf("add the scheduler estimator: %w", err)
		}
		estimators = append(estimators, est)
	}
	sched, err := scheduler.New(SchedulerOptions(s, gates, mgr.GetClient(), estimators))
	if err != nil {
		return err
	}
	return sched.SetupWithManager(mgr)
}
