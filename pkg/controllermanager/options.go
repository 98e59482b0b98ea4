// Package controllermanager assembles propel-controller-manager: flags with
// Karmada's names and defaults (the feature gates, a component-base
// feature gate, are defined in pkg/commandline), the controller registry
// (--controllers), the shared resource interpreter and member clients, and
// a controller-runtime manager with leader election.
package controllermanager

import (
	"k8s.io/component-base/featuregate"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"

	"github.com/propel-mc/propel/pkg/autoscaling/federatedhpa"
	"github.com/propel-mc/propel/pkg/commandline"
	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/pkg/resourceinterpreter"
	"github.com/propel-mc/propel/pkg/scheduler/estimator/accurate"
)

// Options are the command-line options, named as karmada-controller-manager's.
type Options struct {
	Kubeconfig  string
	Controllers []string

	LeaderElect                  bool
	LeaderElectResourceName      string
	LeaderElectResourceNamespace string
	LeaseDuration                time.Duration
	RenewDeadline                time.Duration
	RetryPeriod                  time.Duration

	MetricsBindAddress string
	// MetricsSecure serves metrics over HTTPS behind authentication and
	// authorization (TokenReview and SubjectAccessReview against the
	// control plane); off by default, which is Karmada's plain HTTP.
	MetricsSecure bool
	// MetricsCertDir holds tls.crt and tls.key for secure metrics; empty
	// means a self-signed certificate generated at start.
	MetricsCertDir         string
	HealthProbeBindAddress string
	// AllowHTTPMemberEndpoints lets Clusters with an http:// apiEndpoint and
	// insecureSkipTLSVerification be reached (see membercluster.CheckEndpoint).
	AllowHTTPMemberEndpoints bool
	// EnablePprof serves net/http/pprof on ProfilingBindAddress (Karmada's
	// --enable-pprof, --profiling-bind-address).
	EnablePprof          bool
	ProfilingBindAddress string

	KubeAPIQPS      float32
	KubeAPIBurst    int
	ClusterAPIQPS   float32
	ClusterAPIBurst int

	ClusterStatusUpdateFrequency time.Duration
	ClusterSuccessThreshold      time.Duration
	ClusterFailureThreshold      time.Duration
	ClusterCacheSyncTimeout      time.Duration
	// ClusterMonitorPeriod, ClusterMonitorGracePeriod and
	// ClusterStartupGracePeriod drive the cluster controller's health
	// monitor of Pull clusters (Ready turns Unknown after the grace).
	ClusterMonitorPeriod      time.Duration
	ClusterMonitorGracePeriod time.Duration
	ClusterStartupGracePeriod time.Duration

	// EnableTaintManager registers the taint manager (with gate Failover);
	// EnableNoExecuteTaintEviction lets it evict; the purge mode applies to
	// bindings without spec.failover.cluster. ResourceEvictionRate paces
	// its eviction queues.
	EnableTaintManager              bool
	EnableNoExecuteTaintEviction    bool
	NoExecuteTaintEvictionPurgeMode string
	ResourceEvictionRate            float32
	// GracefulEvictionTimeout is the lifetime of an eviction task without
	// gracePeriodSeconds.
	GracefulEvictionTimeout time.Duration
	// FederatedResourceQuotaSyncPeriod is how often the enforcement
	// controller recomputes every quota's overall usage.
	FederatedResourceQuotaSyncPeriod time.Duration
	// HPA are the FederatedHPA controller's --horizontal-pod-autoscaler-*
	// flags (upscale and downscale delay are parsed and unused in Karmada
	// too, so they stay in inactiveflags.go).
	HPA federatedhpa.Options
	// EnableClusterResourceModeling collects nodeSummary and
	// resourceSummary (and resource models) from the members.
	EnableClusterResourceModeling bool
	ConcurrentClusterSyncs        int
	ConcurrentBindingSyncs        int
	ConcurrentClusterBindingSyncs int
	ConcurrentWorkSyncs           int
	ConcurrentNamespaceSyncs      int
	ConcurrentTemplateSyncs       int
	ConcurrentDependentSyncs      int

	SkippedPropagatingAPIs       string
	SkippedPropagatingNamespaces []string
	SchedulerName                string
	// Estimator is the in-process scheduler's --enable-scheduler-estimator
	// and its flags (karmada-scheduler's; karmada-controller-manager has
	// no scheduler and no such flags).
	Estimator             *accurate.Options
	InterpreterPrecedence string
	// SoftMemoryLimit is the Go runtime's soft memory limit (see
	// applySoftMemoryLimit); "" derives it from GOMEMLIMIT or the cgroup.
	SoftMemoryLimit string

	// FeatureGates is --feature-gates; nil means every gate at its default.
	FeatureGates featuregate.MutableFeatureGate

	// inactive are the Karmada flags accepted without effect (AddFlags).
	inactive *commandline.Inactive
}

// NewOptions returns Karmada's defaults.
func NewOptions() *Options {
	return &Options{
		Controllers:                      []string{"*"},
		LeaderElect:                      true,
		LeaderElectResourceName:          names.ControllerManagerLease,
		LeaderElectResourceNamespace:     "karmada-system",
		LeaseDuration:                    15 * time.Second,
		RenewDeadline:                    10 * time.Second,
		RetryPeriod:                      2 * time.Second,
		MetricsBindAddress:               ":8080",
		HealthProbeBindAddress:           ":10357",
		ProfilingBindAddress:             ":6060",
		KubeAPIQPS:                       40,
		KubeAPIBurst:                     60,
		ClusterAPIQPS:                    40,
		ClusterAPIBurst:                  60,
		ClusterStatusUpdateFrequency:     10 * time.Second,
		ClusterSuccessThreshold:          30 * time.Second,
		ClusterFailureThreshold:          30 * time.Second,
		ClusterCacheSyncTimeout:          2 * time.Minute,
		ClusterMonitorPeriod:             5 * time.Second,
		ClusterMonitorGracePeriod:        40 * time.Second,
		ClusterStartupGracePeriod:        60 * time.Second,
		EnableTaintManager:               true,
		NoExecuteTaintEvictionPurgeMode:  "Gracefully",
		ResourceEvictionRate:             0.5,
		GracefulEvictionTimeout:          10 * time.Minute,
		FederatedResourceQuotaSyncPeriod: 5 * time.Minute,
		HPA: federatedhpa.Options{
			SyncPeriod: 15 * time.Second, DownscaleStabilization: 5 * time.Minute, Tolerance: 0.1,
			CPUInitializationPeriod: 5 * time.Minute, InitialReadinessDelay: 30 * time.Second,
		},
		EnableClusterResourceModeling: true,
		ConcurrentClusterSyncs:        5,
		ConcurrentBindingSyncs:        5,
		ConcurrentClusterBindingSyncs: 5,
		ConcurrentWorkSyncs:           5,
		ConcurrentNamespaceSyncs:      1,
		ConcurrentTemplateSyncs:       5,
		ConcurrentDependentSyncs:      2,
		SkippedPropagatingNamespaces:  []string{"kube-.*"},
		SchedulerName:                 "default-scheduler",
		InterpreterPrecedence:         string(resourceinterpreter.PrecedencePropel),
		FeatureGates:                  commandline.NewFeatureGates(),
		Estimator:                     accurate.NewOptions(),
	}
}

// AddFlags registers the options on fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path to the control plane (karmada-apiserver) kubeconfig.")
	fs.StringSliceVar(&o.Controllers, "controllers", o.Controllers, NewControllerRegistry().Usage())
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "Run leader election so that only one replica writes.")
	fs.StringVar(&o.LeaderElectResourceName, "leader-elect-resource-name", o.LeaderElectResourceName, "Lease name; Karmada's by default, so Propel and karmada-controller-manager never lead at once.")
	fs.StringVar(&o.LeaderElectResourceNamespace, "leader-elect-resource-namespace", o.LeaderElectResourceNamespace, "Lease namespace.")
	fs.DurationVar(&o.LeaseDuration, "leader-elect-lease-duration", o.LeaseDuration, "Leader election lease duration.")
	fs.DurationVar(&o.RenewDeadline, "leader-elect-renew-deadline", o.RenewDeadline, "Leader election renew deadline.")
	fs.DurationVar(&o.RetryPeriod, "leader-elect-retry-period", o.RetryPeriod, "Leader election retry period.")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress, "Prometheus metrics address; '0' disables.")
	fs.BoolVar(&o.MetricsSecure, "metrics-secure", o.MetricsSecure, "Serve metrics over HTTPS to callers the control plane authenticates and authorizes (get on the non-resource URL /metrics). Off by default: plain HTTP to anyone, as Karmada serves them.")
	fs.StringVar(&o.MetricsCertDir, "metrics-cert-dir", o.MetricsCertDir, "Directory with tls.crt and tls.key for --metrics-secure; empty generates a self-signed certificate.")
	fs.BoolVar(&o.AllowHTTPMemberEndpoints, "allow-http-member-endpoints", o.AllowHTTPMemberEndpoints, "Reach Clusters whose apiEndpoint is http:// when they also set insecureSkipTLSVerification; otherwise such Clusters are refused (their bearer token would travel in clear text).")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress, "Health probe address (/healthz, /readyz); '0' disables.")
	fs.BoolVar(&o.EnablePprof, "enable-pprof", o.EnablePprof, "Serve net/http/pprof profiles on --profiling-bind-address.")
	fs.StringVar(&o.ProfilingBindAddress, "profiling-bind-address", o.ProfilingBindAddress, "Address of the pprof endpoints when --enable-pprof is set.")
	fs.Float32Var(&o.KubeAPIQPS, "kube-api-qps", o.KubeAPIQPS, "QPS to the control plane.")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", o.KubeAPIBurst, "Burst to the control plane.")
	fs.Float32Var(&o.ClusterAPIQPS, "cluster-api-qps", o.ClusterAPIQPS, "QPS to each member cluster.")
	fs.IntVar(&o.ClusterAPIBurst, "cluster-api-burst", o.ClusterAPIBurst, "Burst to each member cluster.")
	fs.DurationVar(&o.ClusterStatusUpdateFrequency, "cluster-status-update-frequency", o.ClusterStatusUpdateFrequency, "How often member cluster status is collected.")
	fs.DurationVar(&o.ClusterSuccessThreshold, "cluster-success-threshold", o.ClusterSuccessThreshold, "How long a member must be seen healthy before it is marked Ready.")
	fs.DurationVar(&o.ClusterFailureThreshold, "cluster-failure-threshold", o.ClusterFailureThreshold, "How long a member must be seen unhealthy before it is marked not Ready.")
	fs.DurationVar(&o.ClusterCacheSyncTimeout, "cluster-cache-sync-timeout", o.ClusterCacheSyncTimeout, "Longest wait for a member's node and pod informers to sync.")
	fs.DurationVar(&o.ClusterMonitorPeriod, "cluster-monitor-period", o.ClusterMonitorPeriod, "How often the cluster controller checks that Pull clusters still post status (must be > 0).")
	fs.DurationVar(&o.ClusterMonitorGracePeriod, "cluster-monitor-grace-period", o.ClusterMonitorGracePeriod, "How long a Pull cluster may go without posting status or renewing its Lease before its Ready condition turns Unknown (must be > 0).")
	fs.DurationVar(&o.ClusterStartupGracePeriod, "cluster-startup-grace-period", o.ClusterStartupGracePeriod, "The same grace for a Pull cluster that never posted a Ready condition (must be > 0).")
	fs.BoolVar(&o.EnableTaintManager, "enable-taint-manager", o.EnableTaintManager, "Run the taint manager (needs the Failover feature gate): bindings leave clusters with NoExecute taints they do not tolerate.")
	fs.BoolVar(&o.EnableNoExecuteTaintEviction, "enable-no-execute-taint-eviction", o.EnableNoExecuteTaintEviction, "Let the taint manager evict; without it the taint manager does nothing.")
	fs.StringVar(&o.NoExecuteTaintEvictionPurgeMode, "no-execute-taint-eviction-purge-mode", o.NoExecuteTaintEvictionPurgeMode, "Purge mode of taint evictions for bindings without spec.failover.cluster: Gracefully or Directly.")
	fs.Float32Var(&o.ResourceEvictionRate, "resource-eviction-rate", o.ResourceEvictionRate, "Evictions per second each taint-manager worker performs at most (>= 0; 0 means one every 30 minutes).")
	fs.DurationVar(&o.FederatedResourceQuotaSyncPeriod, "federated-resource-quota-sync-period", o.FederatedResourceQuotaSyncPeriod, "How often FederatedResourceQuota enforcement recomputes every quota's overall usage from the ResourceBindings (must be > 0).")
	fs.DurationVar(&o.HPA.SyncPeriod, "horizontal-pod-autoscaler-sync-period", o.HPA.SyncPeriod, "How often each FederatedHPA is reconciled.")
	fs.DurationVar(&o.HPA.DownscaleStabilization, "horizontal-pod-autoscaler-downscale-stabilization", o.HPA.DownscaleStabilization, "The FederatedHPA scale-down stabilisation window (and the default scaleDown window of a behavior).")
	fs.Float64Var(&o.HPA.Tolerance, "horizontal-pod-autoscaler-tolerance", o.HPA.Tolerance, "The minimum change (from 1.0) in the desired-to-actual metrics ratio for the FederatedHPA to scale.")
	fs.DurationVar(&o.HPA.CPUInitializationPeriod, "horizontal-pod-autoscaler-cpu-initialization-period", o.HPA.CPUInitializationPeriod, "The period after pod start during which cpu samples are trusted only from pods ready for a whole sample window.")
	fs.DurationVar(&o.HPA.InitialReadinessDelay, "horizontal-pod-autoscaler-initial-readiness-delay", o.HPA.InitialReadinessDelay, "The period after pod start during which readiness changes count as the initial readiness.")
	fs.DurationVar(&o.GracefulEvictionTimeout, "graceful-eviction-timeout", o.GracefulEvictionTimeout, "How long an eviction task without gracePeriodSeconds keeps the evicted copy at most.")
	fs.BoolVar(&o.EnableClusterResourceModeling, "enable-cluster-resource-modeling", o.EnableClusterResourceModeling, "Collect members' nodes and pods into Cluster status (nodeSummary, resourceSummary, resource models) for the scheduler.")
	fs.IntVar(&o.ConcurrentClusterSyncs, "concurrent-cluster-syncs", o.ConcurrentClusterSyncs, "Clusters reconciled concurrently.")
	fs.IntVar(&o.ConcurrentBindingSyncs, "concurrent-resourcebinding-syncs", o.ConcurrentBindingSyncs, "ResourceBindings reconciled concurrently.")
	fs.IntVar(&o.ConcurrentClusterBindingSyncs, "concurrent-clusterresourcebinding-syncs", o.ConcurrentClusterBindingSyncs, "ClusterResourceBindings reconciled concurrently.")
	fs.IntVar(&o.ConcurrentWorkSyncs, "concurrent-work-syncs", o.ConcurrentWorkSyncs, "Works reconciled concurrently.")
	fs.IntVar(&o.ConcurrentNamespaceSyncs, "concurrent-namespace-syncs", o.ConcurrentNamespaceSyncs, "Namespaces reconciled concurrently.")
	fs.IntVar(&o.ConcurrentTemplateSyncs, "concurrent-resource-template-syncs", o.ConcurrentTemplateSyncs, "Resource templates reconciled concurrently.")
	fs.IntVar(&o.ConcurrentDependentSyncs, "concurrent-dependent-resource-syncs", o.ConcurrentDependentSyncs, "Dependent resources reconciled concurrently.")
	fs.StringVar(&o.SkippedPropagatingAPIs, "skipped-propagating-apis", o.SkippedPropagatingAPIs, "APIs never propagated, ';'-separated: <group>, <group>/<version>, <group>/<version>/<Kind>[,<Kind>], v1/<Kind>.")
	fs.StringSliceVar(&o.SkippedPropagatingNamespaces, "skipped-propagating-namespaces", o.SkippedPropagatingNamespaces, "Regexes of namespaces never propagated.")
	fs.StringVar(&o.SchedulerName, "scheduler-name", o.SchedulerName, "The in-process scheduler takes bindings with this schedulerName.")
	if o.Estimator == nil {
		o.Estimator = accurate.NewOptions()
	}
	o.Estimator.AddFlags(fs)
	if o.FeatureGates == nil {
		o.FeatureGates = commandline.NewFeatureGates()
	}
	commandline.AddFeatureGatesFlag(fs, o.FeatureGates)
	fs.StringVar(&o.SoftMemoryLimit, "soft-memory-limit", o.SoftMemoryLimit, "Go runtime soft memory limit (e.g. 256Mi): the garbage collector works harder near it. Default: GOMEMLIMIT if set, else 90% of the container's cgroup memory limit, else none.")
	fs.StringVar(&o.InterpreterPrecedence, "interpreter-precedence", o.InterpreterPrecedence, "Order of interpreter layers: 'propel' (webhook, then Lua customization) or 'karmada' (Lua customization, then webhook).")
	o.inactive = commandline.AddInactiveFlags(fs, "karmada-controller-manager", inactiveFlags)
}

// warnInactive logs, once, every Karmada flag, feature gate and controller
// given on the command line that Propel accepts but does not act on.
func (o *Options) warnInactive(logger logr.Logger) {
	if o.inactive != nil {
		o.inactive.Warn(logger)
	}
	commandline.WarnInactiveGates(logger, o.FeatureGates)
	for _, name := range inactiveControllers(o.Controllers, NewControllerRegistry().IsRegistered) {
		logger.Info("warning: controller accepted for compatibility has no effect in Propel", "controller", name)
	}
}
