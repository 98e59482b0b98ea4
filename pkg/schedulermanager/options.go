package schedulermanager

import (
	"k8s.io/component-base/featuregate"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"

	"github.com/propel-mc/propel/pkg/commandline"
	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/pkg/scheduler/estimator/accurate"
)

// Options are the command-line options, named as karmada-scheduler's.
type Options struct {
	Kubeconfig string
	Master     string

	LeaderElect                  bool
	LeaderElectResourceName      string
	LeaderElectResourceNamespace string
	LeaseDuration                time.Duration
	RenewDeadline                time.Duration
	RetryPeriod                  time.Duration

	MetricsBindAddress     string
	HealthProbeBindAddress string
	EnablePprof            bool
	ProfilingBindAddress   string

	KubeAPIQPS   float32
	KubeAPIBurst int

	SchedulerName                  string
	Plugins                        []string
	EnableEmptyWorkloadPropagation bool

	// Estimator is --enable-scheduler-estimator and its flags.
	Estimator *accurate.Options

	// FeatureGates is --feature-gates; nil means every gate at its default.
	FeatureGates featuregate.MutableFeatureGate

	inactive *commandline.Inactive
}

// NewOptions returns karmada-scheduler's defaults.
func NewOptions() *Options {
	return &Options{
		LeaderElect:                  true,
		LeaderElectResourceName:      names.SchedulerLease,
		LeaderElectResourceNamespace: "karmada-system",
		LeaseDuration:                15 * time.Second,
		RenewDeadline:                10 * time.Second,
		RetryPeriod:                  2 * time.Second,
		MetricsBindAddress:           ":8080",
		HealthProbeBindAddress:       ":10351",
		ProfilingBindAddress:         ":6060",
		KubeAPIQPS:                   40,
		KubeAPIBurst:                 60,
		SchedulerName:                "default-scheduler",
		FeatureGates:                 commandline.NewFeatureGates(),
		Estimator:                    accurate.NewOptions(),
	}
}

// AddFlags registers the options on fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path to the control plane (karmada-apiserver) kubeconfig.")
	fs.StringVar(&o.Master, "master", o.Master, "Address of the control plane's API server; overrides the kubeconfig's server.")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "Run leader election so that only one replica schedules.")
	fs.StringVar(&o.LeaderElectResourceName, "leader-elect-resource-name", o.LeaderElectResourceName, "Lease name; karmada-scheduler's by default, so Propel and karmada-scheduler never lead at once.")
	fs.StringVar(&o.LeaderElectResourceNamespace, "leader-elect-resource-namespace", o.LeaderElectResourceNamespace, "Lease namespace.")
	fs.DurationVar(&o.LeaseDuration, "leader-elect-lease-duration", o.LeaseDuration, "Leader election lease duration.")
	fs.DurationVar(&o.RenewDeadline, "leader-elect-renew-deadline", o.RenewDeadline, "Leader election renew deadline.")
	fs.DurationVar(&o.RetryPeriod, "leader-elect-retry-period", o.RetryPeriod, "Leader election retry period.")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress, "Prometheus metrics address; '0' disables.")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress, "Health probe address (/healthz, /readyz); '0' disables.")
	fs.BoolVar(&o.EnablePprof, "enable-pprof", o.EnablePprof, "Serve net/http/pprof profiles on --profiling-bind-address.")
	fs.StringVar(&o.ProfilingBindAddress, "profiling-bind-address", o.ProfilingBindAddress, "Address of the pprof endpoints when --enable-pprof is set.")
	fs.Float32Var(&o.KubeAPIQPS, "kube-api-qps", o.KubeAPIQPS, "QPS to the control plane.")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", o.KubeAPIBurst, "Burst to the control plane.")
	fs.StringVar(&o.SchedulerName, "scheduler-name", o.SchedulerName, "Schedule the bindings whose spec.schedulerName is this.")
	fs.StringSliceVar(&o.Plugins, "plugins", o.Plugins, "Scheduler plugins: '*' all, 'Name' enables, '-Name' disables.")
	fs.BoolVar(&o.EnableEmptyWorkloadPropagation, "enable-empty-workload-propagation", o.EnableEmptyWorkloadPropagation, "Keep selected clusters that get 0 replicas in the result.")
	if o.Estimator == nil {
		o.Estimator = accurate.NewOptions()
	}
	o.Estimator.AddFlags(fs)
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
