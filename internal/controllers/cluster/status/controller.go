package status

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/shared/eventfilter"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// Options tune the cluster status controller; zero values take Karmada's
// defaults.
type Options struct {
	// Workers is --concurrent-cluster-syncs (default 5).
	Workers int
	// UpdateFrequency is --cluster-status-update-frequency (default 10s).
	UpdateFrequency time.Duration
	// SuccessThreshold is --cluster-success-threshold (default 30s).
	SuccessThreshold time.Duration
	// FailureThreshold is --cluster-failure-threshold (default 30s).
	FailureThreshold time.Duration
	// CacheSyncTimeout is --cluster-cache-sync-timeout (default 2m): the
	// longest a cycle waits for a member's node and pod informers. A cycle
	// waits at most UpdateFrequency and keeps the last summary meanwhile.
	CacheSyncTimeout time.Duration
	// DisableResourceModeling is the negation of
	// --enable-cluster-resource-modeling: no node or pod informers, no
	// nodeSummary or resourceSummary.
	DisableResourceModeling bool
}

func (o *Options) defaults() {
	if o.Workers <= 0 {
		o.Workers = 5
	}
	if o.UpdateFrequency <= 0 {
		o.UpdateFrequency = 10 * time.Second
	}
	if o.SuccessThreshold <= 0 {
		o.SuccessThreshold = 30 * time.Second
	}
	if o.FailureThreshold <= 0 {
		o.FailureThreshold = 30 * time.Second
	}
	if o.CacheSyncTimeout <= 0 {
		o.CacheSyncTimeout = 2 * time.Minute
	}
}

// Reconciler is the cluster status controller.
type Reconciler struct {
	client     client.Client
	members    *membercluster.Clients
	informers  *membercluster.Informers
	opts       Options
	thresholds *thresholds
	summaries  *summaries
}

// New returns a cluster status controller that reaches members through
// members and reads their Nodes and Pods through informers (whose
// member-informers controller stops them when a Cluster goes away);
// SetupWithManager wires it.
func New(members *membercluster.Clients, informers *membercluster.Informers, opts Options) *Reconciler {
	opts.defaults()
	return &Reconciler{
		members: members, informers: informers, opts: opts,
		thresholds: newThresholds(opts.SuccessThreshold, opts.FailureThreshold),
		summaries:  newSummaries(),
	}
}

// SetupWithManager registers the controller with mgr. A Cluster is
// reconciled when created, when its spec changes, when it gains the
// cluster-controller finalizer, and then every UpdateFrequency.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.client = mgr.GetClient()
	return ctrl.NewControllerManagedBy(mgr).Named(names.ClusterStatusControllerName).
		For(&clusterv1alpha1.Cluster{}, builder.WithPredicates(eventfilter.UpdatesOf(func(o, n *clusterv1alpha1.Cluster) bool {
			return o.Generation != n.Generation || hasFinalizer(o) != hasFinalizer(n)
		}, eventfilter.Creates, eventfilter.Deletes, eventfilter.Generics))).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.opts.Workers}).
		Complete(r)
}

func hasFinalizer(o client.Object) bool {
	return controllerutil.ContainsFinalizer(o, names.ClusterControllerFinalizer)
}

// inScope tells whether the controller collects this cluster's status:
// Push clusters with a secretRef (karmada-agent reports Pull clusters).
func inScope(c *clusterv1alpha1.Cluster) bool {
	return c.Spec.SyncMode == clusterv1alpha1.Push && c.Spec.SecretRef != nil
}

// Reconcile runs one status cycle of a cluster and schedules the next.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ctx = logr.NewContext(ctx, log.FromContext(ctx).WithValues("cluster", klog.KRef("", req.Name)))
	cluster := &clusterv1alpha1.Cluster{}
	if err := r.client.Get(ctx, req.NamespacedName, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.Name)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("get cluster %s: %w", req.Name, err)
	}
	if !inScope(cluster) {
		r.forget(cluster.Name)
		return ctrl.Result{}, nil
	}
	if !hasFinalizer(cluster) {
		// The cluster controller adds it first; its event brings us back.
		return ctrl.Result{}, nil
	}
	start := time.Now()
	desired := r.desiredStatus(ctx, cluster)
	err := r.writeStatus(ctx, cluster, desired)
	recordSync(cluster.Name, desired, start)
	if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: r.opts.UpdateFrequency}, nil
}

// forget drops everything kept for a cluster: Node and Pod informers, the
// last summary, member clients and threshold state.
func (r *Reconciler) forget(name string) {
	r.informers.StopNodesAndPods(name)
	r.summaries.forget(name)
	r.thresholds.forget(name)
	r.members.Forget(name)
	forgetMetrics(name)
}
