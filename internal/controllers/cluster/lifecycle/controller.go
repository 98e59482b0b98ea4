package lifecycle

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/app/controllermanager/recorder"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// RBAC: Cluster lifecycle: finalizers and taints (patch), the Ready
// condition of Pull clusters (status), execution namespaces (created,
// labelled, deleted), the Works of a removed Pull cluster released (patch).
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters/status,verbs=patch
// +kubebuilder:rbac:groups=core,resources=namespaces,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch;patch

// Options tune the cluster controller; zero values take Karmada's defaults.
type Options struct {
	// Workers is --concurrent-cluster-syncs (default 5).
	Workers int
	// RemovalPollInterval is how often a deleted Cluster is rechecked while
	// its execution namespace or bindings remain (Karmada: 10s).
	RemovalPollInterval time.Duration
	// MonitorPeriod is --cluster-monitor-period (default 5s).
	MonitorPeriod time.Duration
	// MonitorGracePeriod is --cluster-monitor-grace-period (default 40s).
	MonitorGracePeriod time.Duration
	// StartupGracePeriod is --cluster-startup-grace-period (default 60s).
	StartupGracePeriod time.Duration
}

func (o *Options) defaults() {
	if o.Workers <= 0 {
		o.Workers = 5
	}
	if o.RemovalPollInterval <= 0 {
		o.RemovalPollInterval = 10 * time.Second
	}
	if o.MonitorPeriod <= 0 {
		o.MonitorPeriod = 5 * time.Second
	}
	if o.MonitorGracePeriod <= 0 {
		o.MonitorGracePeriod = 40 * time.Second
	}
	if o.StartupGracePeriod <= 0 {
		o.StartupGracePeriod = 60 * time.Second
	}
}

// Reconciler is the cluster controller.
type Reconciler struct {
	client   client.Client
	recorder record.EventRecorder
	opts     Options
	monitor  *healthMonitor
}

// New returns a cluster controller; SetupWithManager wires it.
func New(opts Options) *Reconciler {
	opts.defaults()
	return &Reconciler{opts: opts}
}

// SetupWithManager registers the controller and the Pull-cluster health
// monitor with mgr, whose cache must have the binding index of internal/shared/index.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.client = mgr.GetClient()
	r.recorder = recorder.For(mgr, names.ClusterControllerName)
	r.monitor = newHealthMonitor(mgr.GetClient(), mgr.GetAPIReader(), r.opts)
	if err := mgr.Add(r.monitor); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).Named(names.ClusterControllerName).
		For(&clusterv1alpha1.Cluster{}, clusterChanges()).
		Watches(namespaceSource(), executionSpaceHandler(), onlyDeletes()).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.opts.Workers}).
		Complete(r)
}

// Reconcile syncs a live Cluster or cleans up after a deleted one.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ctx = logr.NewContext(ctx, log.FromContext(ctx).WithValues("cluster", klog.KRef("", req.Name)))
	cluster := &clusterv1alpha1.Cluster{}
	if err := r.client.Get(ctx, req.NamespacedName, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			r.monitor.forget(req.Name)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("get cluster %s: %w", req.Name, err)
	}
	if !cluster.DeletionTimestamp.IsZero() {
		return r.remove(ctx, cluster)
	}
	return ctrl.Result{}, r.sync(ctx, cluster)
}

// sync runs the phases of a live cluster in Karmada's order.
func (r *Reconciler) sync(ctx context.Context, cluster *clusterv1alpha1.Cluster) error {
	if err := r.ensureExecutionSpace(ctx, cluster); err != nil {
		return err
	}
	if err := r.ensureTaints(ctx, cluster); err != nil {
		return err
	}
	return r.ensureFinalizer(ctx, cluster)
}
