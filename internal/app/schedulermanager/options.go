package schedulermanager

import (
	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"k8s.io/component-base/featuregate"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/app/managerbase"
	"github.com/propel-mc/propel/internal/shared/names"
)

// Options are the command-line options, named as karmada-scheduler's.
type Options struct {
	managerbase.Connection
	managerbase.LeaderElection
	managerbase.Serving
	Scheduling

	// FeatureGates is --feature-gates; nil means every gate at its default.
	FeatureGates featuregate.MutableFeatureGate

	inactive *commandline.Inactive
}

// NewOptions returns karmada-scheduler's defaults.
func NewOptions() *Options {
	return &Options{
		Connection:     managerbase.Connection{KubeAPIQPS: 40, KubeAPIBurst: 60},
		LeaderElection: managerbase.NewLeaderElection(names.SchedulerLease),
		Serving:        managerbase.NewServing(":10351"),
		Scheduling:     NewScheduling(),
		FeatureGates:   commandline.NewFeatureGates(),
	}
}

// AddFlags registers the options on fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.Connection.AddFlags(fs, managerbase.ConnectionFlags{Target: "the control plane (karmada-apiserver)", Master: true})
	o.LeaderElection.AddFlags(fs, "schedules", "karmada-scheduler")
	o.Serving.AddFlags(fs, managerbase.ServingFlags{Pprof: true})
	o.Scheduling.AddFlags(fs, SchedulingFlags{SchedulerNameHelp: "Schedule the bindings whose spec.schedulerName is this.", Plugins: true})
	if o.FeatureGates == nil {
		o.FeatureGates = commandline.NewFeatureGates()
	}
	commandline.AddFeatureGatesFlag(fs, o.FeatureGates)
	o.inactive = commandline.AddInactiveFlags(fs, "karmada-scheduler", inactiveFlags)
}

// warnInactive logs, once, every Karmada flag and feature gate given on
// the command line that propel-scheduler accepts but does not act on.
func (o *Options) warnInactive(logger logr.Logger) {
	if o.inactive != nil {
		o.inactive.Warn(logger)
	}
	commandline.WarnInactiveGates(logger, o.FeatureGates)
}
