package scheduler

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/app/controllermanager/recorder"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/core"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/estimator"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/plugins"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/workloadgroups"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/writememo"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// RBAC: the scheduler watches bindings and Clusters.
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings;clusterresourcebindings,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch

// Queue timing (Karmada's scheduling queue): failed attempts back off
// from 1 s up to 10 s; unschedulable bindings are retried after 5 min
// unless a cluster change requeues them earlier.
const (
	backoffBase        = time.Second
	backoffMax         = 10 * time.Second
	unschedulableRetry = 5 * time.Minute
)

// Options configures a Scheduler.
type Options struct {
	// SchedulerName selects the bindings to schedule (--scheduler-name);
	// default "default-scheduler".
	SchedulerName string
	// Plugins is the --plugins list ("*", "*,-Name", names); default all.
	Plugins []string
	// EnableEmptyWorkloadPropagation is --enable-empty-workload-propagation.
	EnableEmptyWorkloadPropagation bool
	// IgnorePriority queues every binding with the same priority
	// (PriorityBasedScheduling gate off); by default the queue serves
	// higher spec.schedulePriority.priority first.
	IgnorePriority bool
	// DisableAssume turns the assume cache off (see assumeCache): parallel
	// workers may then overcommit clusters. For tests and comparisons only.
	DisableAssume bool
	// OvercommitProtection is the SchedulingOvercommitProtection gate
	// (alpha): the assume cache follows Karmada's assumptions (components
	// included, kept until the workload is Healthy) and sends them to the
	// accurate estimators as assumed workloads.
	OvercommitProtection bool
	// DisableResourceModels turns off the general estimator's resource-model
	// path (gate CustomizedClusterResourceModeling off).
	DisableResourceModels bool
	// Workers schedule different bindings in parallel (default 8). The
	// core is a pure function of the binding and the cached clusters, and a
	// binding is never in two workers at once; karmada-scheduler uses one
	// worker, which with two API writes per decision caps it at roughly
	// 1/(2 x write latency) bindings per second.
	Workers int
	// Accurate are estimators asked besides the general one
	// (--enable-scheduler-estimator: internal/scheduling/scheduler/estimator/accurate);
	// the smallest answer wins.
	Accurate []estimator.BatchEstimator
	// WorkloadAffinity is the feature gate of that name (alpha): the
	// WorkloadAffinity and WorkloadAntiAffinity filters co-locate or
	// separate the ResourceBindings of a workload affinity group.
	WorkloadAffinity bool
	// Quota checks a new placement of a ResourceBinding against the
	// namespace's FederatedResourceQuotas before it is written (gate
	// FederatedQuotaEnforcement; nil: no check).
	Quota QuotaAdmitter
}

// QuotaAdmitter charges the change of placement from oldSpec to newSpec to
// the quotas of namespace, or refuses it with an error that unwraps to a
// *usage.Exceeded (internal/controllers/federatedquota/enforcement.Admitter, which leaves
// the charge to a ResourceBinding webhook when one is installed).
type QuotaAdmitter interface {
	Admit(ctx context.Context, namespace string, oldSpec, newSpec *workv1alpha2.ResourceBindingSpec) error
}

// Scheduler is the scheduling controller.
type Scheduler struct {
	name     string
	core     *core.Scheduler
	client   client.Client
	recorder record.EventRecorder
	// writes lets a reconcile read the scheduler's own writes before the
	// cache shows them: without it, the reconcile triggered by its own spec
	// patch could see the old status and write it again.
	writes  *writememo.Memo[types.NamespacedName, client.Object]
	assumed *assumeCache
	// groups indexes the ResourceBindings' workload affinity groups and
	// placements (nil without the WorkloadAffinity gate).
	groups  *workloadgroups.Index
	workers int
	// ignorePriority is Options.IgnorePriority.
	ignorePriority bool
	quota          QuotaAdmitter
	now            func() time.Time
}

// New builds a Scheduler from opts.
func New(opts Options) (*Scheduler, error) {
	set, err := plugins.Parse(opts.Plugins, opts.WorkloadAffinity)
	if err != nil {
		return nil, err
	}
	name := opts.SchedulerName
	if name == "" {
		name = names.DefaultSchedulerName
	}
	if opts.Workers <= 0 {
		opts.Workers = 8
	}
	assumed := newAssumeCache()
	assumed.disabled = opts.DisableAssume
	assumed.overcommitProtection = opts.OvercommitProtection
	est := &estimator.Set{
		Estimators:   []estimator.Estimator{estimator.General{DisableResourceModels: opts.DisableResourceModels}},
		Batch:        opts.Accurate,
		Reservations: assumed,
	}
	if opts.OvercommitProtection {
		est.Assumptions = assumed
	}
	var groups *workloadgroups.Index
	var peers framework.WorkloadPeerLookup
	if opts.WorkloadAffinity {
		groups = workloadgroups.New()
		peers = groups
	}
	return &Scheduler{
		name:           name,
		workers:        opts.Workers,
		assumed:        assumed,
		groups:         groups,
		ignorePriority: opts.IgnorePriority,
		quota:          opts.Quota,
		core: &core.Scheduler{
			Plugins:                        set,
			Estimator:                      est,
			EnableEmptyWorkloadPropagation: opts.EnableEmptyWorkloadPropagation,
			WorkloadPeers:                  peers,
		},
		writes: writememo.New[types.NamespacedName, client.Object]("scheduler"),
		now:    time.Now,
	}, nil
}

// Name is the scheduler name bindings must carry.
func (s *Scheduler) Name() string { return s.name }

// SetupWithManager registers the controller: Options.Workers workers fed by
// ResourceBinding, ClusterResourceBinding and Cluster events, reading
// everything from the manager's cache.
func (s *Scheduler) SetupWithManager(mgr ctrl.Manager) error {
	s.client = mgr.GetClient()
	s.recorder = recorder.For(mgr, s.name)
	err := ctrl.NewControllerManagedBy(mgr).
		Named("scheduler-"+s.name).
		WithOptions(controller.Options{
			MaxConcurrentReconciles: s.workers,
			RateLimiter:             workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](backoffBase, backoffMax),
		}).
		Watches(&workv1alpha2.ResourceBinding{}, &bindingHandler{s: s}).
		Watches(&workv1alpha2.ClusterResourceBinding{}, &bindingHandler{s: s}).
		Watches(&clusterv1alpha1.Cluster{}, &clusterHandler{s: s}).
		Complete(s)
	if err != nil {
		return fmt.Errorf("set up scheduler %s: %w", s.name, err)
	}
	return nil
}
