package schedulermanager

import (
	"github.com/spf13/pflag"

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

	commandline.Compatibility
}

// NewOptions returns karmada-scheduler's defaults.
func NewOptions() *Options {
	return &Options{
		Connection:     managerbase.Connection{KubeAPIQPS: 40, KubeAPIBurst: 60},
		LeaderElection: managerbase.NewLeaderElection(names.SchedulerLease),
		Serving:        managerbase.NewServing(":10351"),
		Scheduling:     NewScheduling(),
		Compatibility:  commandline.NewCompatibility(),
	}
}

// AddFlags registers the options on fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.Connection.AddFlags(fs, managerbase.ConnectionFlags{Target: "the control plane (karmada-apiserver)", Master: true})
	o.LeaderElection.AddFlags(fs, "schedules", "karmada-scheduler")
	o.Serving.AddFlags(fs, managerbase.ServingFlags{Pprof: true})
	o.Scheduling.AddFlags(fs, SchedulingFlags{SchedulerNameHelp: "Schedule the bindings whose spec.schedulerName is this.", Plugins: true})
	o.Compatibility.AddFlags(fs, "karmada-scheduler", inactiveFlags)
}
