package gracefuleviction

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/propel-mc/propel/internal/app/controllermanager/recorder"
	"github.com/propel-mc/propel/internal/controllers/failover/eviction"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// RBAC: ended graceful eviction tasks are removed from bindings (patch).
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings;clusterresourcebindings,verbs=get;list;watch;patch

// Karmada's controller names.
const (
	ResourceBindingControllerName        = "resource-binding-graceful-eviction-controller"
	ClusterResourceBindingControllerName = "cluster-resource-binding-graceful-eviction-controller"
)

// EventReasonEvictWorkloadFromClusterSucceed is recorded (Normal) on the
// binding and its template for every task the controller drops.
const EventReasonEvictWorkloadFromClusterSucceed = "EvictWorkloadFromClusterSucceed"

// Options tune the controllers.
type Options struct {
	// Timeout is --graceful-eviction-timeout (default 10m): the lifetime
	// of a task without gracePeriodSeconds.
	Timeout time.Duration
	// Workers per controller (default 5).
	Workers int
}

// Reconciler assesses the eviction tasks of one binding kind.
type Reconciler struct {
	client   client.Client
	recorder record.EventRecorder
	opts     Options
	newObj   func() workv1alpha2.Binding
	now      func() time.Time
}

// SetupWithManager registers both controllers (ResourceBinding and
// ClusterResourceBinding) with mgr.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Minute
	}
	if opts.Workers <= 0 {
		opts.Workers = 5
	}
	for _, kind := range []struct {
		name   string
		newObj func() workv1alpha2.Binding
	}{
		{ResourceBindingControllerName, func() workv1alpha2.Binding { return &workv1alpha2.ResourceBinding{} }},
		{ClusterResourceBindingControllerName, func() workv1alpha2.Binding { return &workv1alpha2.ClusterResourceBinding{} }},
	} {
		r := &Reconciler{
			client: mgr.GetClient(), opts: opts, newObj: kind.newObj, now: time.Now,
			recorder: recorder.For(mgr, kind.name),
		}
		if err := ctrl.NewControllerManagedBy(mgr).Named(kind.name).
			For(kind.newObj(), builder.WithPredicates(hasTasks())).
			WithOptions(controller.Options{MaxConcurrentReconciles: opts.Workers}).
			Complete(r); err != nil {
			return err
		}
	}
	return nil
}

// hasTasks passes creates and updates (spec or status) of bindings with
// eviction tasks; deletes are ignored.
func hasTasks() predicate.Predicate {
	with := func(o client.Object) bool {
		b, ok := workv1alpha2.AsBinding(o)
		return ok && len(b.BindingSpec().GracefulEvictionTasks) > 0
	}
	return predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return with(e.Object) },
		UpdateFunc:  func(e event.UpdateEvent) bool { return with(e.ObjectNew) },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(e event.GenericEvent) bool { return with(e.Object) },
	}
}

// Reconcile assesses one binding's tasks and writes the kept ones.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	b := r.newObj()
	if err := r.client.Get(ctx, req.NamespacedName, b); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	logger := log.FromContext(ctx).WithValues("binding", klog.KObj(b))
	ctx = logr.NewContext(ctx, logger)
	if !b.GetDeletionTimestamp().IsZero() || len(b.BindingSpec().GracefulEvictionTasks) == 0 {
		return ctrl.Result{}, nil
	}
	a := assess(b, r.now(), r.opts.Timeout)
	if a.changed {
		base := b.DeepCopyObject().(workv1alpha2.Binding)
		b.BindingSpec().GracefulEvictionTasks = a.kept
		if err := r.client.Patch(ctx, b, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
			return ctrl.Result{}, fmt.Errorf("%s: update gracefulEvictionTasks: %w", workv1alpha2.BindingName(b), err)
		}
		for _, cluster := range a.dropped {
			msg := fmt.Sprintf("Evict from cluster %s succeed.", cluster)
			r.recorder.Event(b, corev1.EventTypeNormal, EventReasonEvictWorkloadFromClusterSucceed, msg)
			r.recorder.Event(eviction.TemplateRef(b), corev1.EventTypeNormal, EventReasonEvictWorkloadFromClusterSucceed, msg)
			logger.Info("graceful eviction finished", "cluster", klog.KRef("", cluster))
		}
	}
	return ctrl.Result{RequeueAfter: a.requeueAfter}, nil
}
