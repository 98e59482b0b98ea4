// Package controllermanager assembles propel-controller-manager: flags with
// Karmada's names and defaults (the feature gates, a component-base
// feature gate, are defined in internal/app/commandline), the controller registry
// (--controllers), the shared resource interpreter and member clients, and
// a controller-runtime manager with leader election.
package controllermanager

import (
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/app/managerbase"
	"github.com/propel-mc/propel/internal/app/schedulermanager"
	"github.com/propel-mc/propel/internal/controllers/autoscaling/federatedhpa"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/shared/names"
)

// Options are the command-line options, named as karmada-controller-manager's.
type Options struct {
	managerbase.Connection
	managerbase.LeaderElection
	managerbase.Serving
	// Scheduling are the in-process scheduler's options: --scheduler-name,
	// --enable-scheduler-estimator and its flags (karmada-scheduler's;
	// karmada-controller-manager has no scheduler and no such flags).
	schedulermanager.Scheduling

	Controllers []string

	// AllowHTTPMemberEndpoints lets Clusters with an http:// apiEndpoint and
	// insecureSkipTLSVerification be reached (see membercluster.CheckEndpoint).
	AllowHTTPMemberEndpoints bool

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
	InterpreterPrecedence        string
	// SoftMemoryLimit is the Go runtime's soft memory limit (see
	// applySoftMemoryLimit); "" derives it from GOMEMLIMIT or the cgroup.
	SoftMemoryLimit string

	commandline.Compatibility
}

// NewOptions returns Karmada's defaults.
func NewOptions() *Options {
	return &Options{
		Connection:                       managerbase.Connection{KubeAPIQPS: 40, KubeAPIBurst: 60},
		LeaderElection:                   managerbase.NewLeaderElection(names.ControllerManagerLease),
		Serving:                          managerbase.NewServing(":10357"),
		Scheduling:                       schedulermanager.NewScheduling(),
		Controllers:                      []string{"*"},
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
		InterpreterPrecedence:         string(resourceinterpreter.PrecedencePropel),
		Compatibility:                 commandline.NewCompatibility(),
	}
}

// AddFlags registers the options on fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.Connection.AddFlags(fs, managerbase.ConnectionFlags{Target: "the control plane (karmada-apiserver)"})
	o.LeaderElection.AddFlags(fs, "writes", "karmada-controller-manager")
	o.Serving.AddFlags(fs, managerbase.ServingFlags{SecureMetrics: true, Pprof: true})
	o.Scheduling.AddFlags(fs, schedulermanager.SchedulingFlags{SchedulerNameHelp: "The in-process scheduler takes bindings with this schedulerName."})
	fs.StringSliceVar(&o.Controllers, "controllers", o.Controllers, NewControllerRegistry().Usage())
	fs.BoolVar(&o.AllowHTTPMemberEndpoints, "allow-http-member-endpoints", o.AllowHTTPMemberEndpoints, "Reach Clusters whose apiEndpoint is http:// when they also set insecureSkipTLSVerification; otherwise such Clusters are refused (their bearer token would travel in clear text).")
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
	fs.StringVar(&o.SoftMemoryLimit, "soft-memory-limit", o.SoftMemoryLimit, "Go runtime soft memory limit (e.g. 256Mi): the garbage collector works harder near it. Default: GOMEMLIMIT if set, else 90% of the container's cgroup memory limit, else none.")
	fs.StringVar(&o.InterpreterPrecedence, "interpreter-precedence", o.InterpreterPrecedence, "Order of interpreter layers: 'propel' (webhook, then Lua customization) or 'karmada' (Lua customization, then webhook).")
	o.Compatibility.AddFlags(fs, "karmada-controller-manager", inactiveFlags)
}

// WarnInactive logs, once, every Karmada flag, feature gate and controller
// given on the command line that Propel accepts but does not act on.
func (o *Options) WarnInactive(logger logr.Logger) {
	o.Compatibility.WarnInactive(logger)
	for _, name := range inactiveControllers(o.Controllers, NewControllerRegistry().IsRegistered) {
		logger.Info("warning: controller accepted for compatibility has no effect in Propel", "controller", name)
	}
}
