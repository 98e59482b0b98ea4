// Package bindingstatus owns the binding status controllers
// (resource-binding-status-controller and
// cluster-resource-binding-status-controller). For each scheduled binding
// (and for each binding of a dependency, whose Works follow the bindings
// that require it without it being scheduled)
// they collect the status of its Works into status.aggregatedStatus
// (sorted by cluster) and the FullyApplied condition, then have the
// resource interpreter aggregate those items into the resource template's
// .status (internal/pipeline/status/templatestatus). Each write happens only when it
// changes something.
package bindingstatus

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/pipeline/status/templatestatus"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Recorder records events; record.EventRecorder is one.
type Recorder interface {
	Event(object runtime.Object, eventtype, reason, message string)
}

// TemplateSyncer writes aggregated statuses into templates;
// *templatestatus.Syncer is one.
type TemplateSyncer interface {
	Sync(ctx context.Context, resource workv1alpha2.ObjectReference, items []workv1alpha2.AggregatedStatusItem) (templatestatus.Result, error)
}

// Options tune a controller; zero values take Karmada's defaults.
type Options struct {
	// Concurrency is --concurrent-resourcebinding-syncs or
	// --concurrent-clusterresourcebinding-syncs (default 5).
	Concurrency int
	// RateLimiter paces retries (default: controller-runtime's).
	RateLimiter workqueue.TypedRateLimiter[reconcile.Request]
	// WorkEventDelay holds a binding back after a change of one of its
	// Works, so that the Works of several clusters, which report at about
	// the same time, cost one binding (and template) status write (default
	// 1s; negative: none, as Karmada).
	WorkEventDelay time.Duration
	// SkipNameValidation lets tests run several managers in one process.
	SkipNameValidation bool
}

// Deps are a controller's collaborators.
type Deps struct {
	// Client reads bindings and Works from the manager's cache and writes
	// binding statuses.
	Client    client.Client
	Templates TemplateSyncer
	Recorder  Recorder
}

// Reconciler aggregates the status of one kind of binding.
type Reconciler struct {
	kind      bindingKind
	client    client.Client
	templates TemplateSyncer
	recorder  Recorder
	opts      Options
}

// NewResourceBinding returns the ResourceBinding status controller.
func NewResourceBinding(deps Deps, opts Options) *Reconciler {
	return newReconciler(resourceBindingKind, deps, opts)
}

// NewClusterResourceBinding returns the ClusterResourceBinding status
// controller.
func NewClusterResourceBinding(deps Deps, opts Options) *Reconciler {
	return newReconciler(clusterResourceBindingKind, deps, opts)
}

func newReconciler(kind bindingKind, deps Deps, opts Options) *Reconciler {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 5
	}
	if opts.WorkEventDelay == 0 {
		opts.WorkEventDelay = time.Second
	}
	return &Reconciler{kind: kind, client: deps.Client, templates: deps.Templates, recorder: deps.Recorder, opts: opts}
}

// SetupWithManager registers the controller (the manager must have the
// Work indexes of internal/shared/index): scheduled
// bindings (on creation, spec change or a new schedule) and Works whose
// status changed or that were deleted.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named(r.kind.controllerName).
		For(r.kind.newBinding(), builder.WithPredicates(r.scheduledChange())).
		Watches(&workv1alpha1.Work{}, r.delayedBindingOfWork(), builder.WithPredicates(workStatusChanged())).
		WithOptions(controller.Options{
			MaxConcurrentReconciles: r.opts.Concurrency,
			RateLimiter:             r.opts.RateLimiter,
			SkipNameValidation:      &r.opts.SkipNameValidation,
		}).
		Complete(r)
}

// scheduledChange passes scheduled bindings when created, when their spec
// changed (generation) and when they were scheduled anew.
func (r *Reconciler) scheduledChange() predicate.Predicate {
	scheduled := func(obj client.Object) bool {
		return statusOf(obj).LastScheduledTime != nil
	}
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return scheduled(e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool {
			if !scheduled(e.ObjectNew) {
				return false
			}
			oldStatus, newStatus := statusOf(e.ObjectOld), statusOf(e.ObjectNew)
			return e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() ||
				!oldStatus.LastScheduledTime.Equal(newStatus.LastScheduledTime)
		},
		DeleteFunc: func(event.DeleteEvent) bool { return false },
	}
}

// workStatusChanged passes Work status changes and deletions; a new Work
// matters once it has a status.
func workStatusChanged() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldW, okOld := e.ObjectOld.(*workv1alpha1.Work)
			newW, okNew := e.ObjectNew.(*workv1alpha1.Work)
			return okOld && okNew && (!equality.Semantic.DeepEqual(oldW.Status, newW.Status) ||
				oldW.DeletionTimestamp.IsZero() != newW.DeletionTimestamp.IsZero())
		},
	}
}

// delayedBindingOfWork enqueues the binding of a changed Work after
// WorkEventDelay; events within the delay collapse into one reconcile.
func (r *Reconciler) delayedBindingOfWork() handler.EventHandler {
	enqueue := func(work client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		key, ok := r.kind.bindingOf(work)
		switch {
		case !ok:
		case r.opts.WorkEventDelay > 0:
			q.AddAfter(reconcile.Request{NamespacedName: key}, r.opts.WorkEventDelay)
		default:
			q.Add(reconcile.Request{NamespacedName: key})
		}
	}
	return handler.Funcs{
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(e.ObjectNew, q)
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(e.Object, q)
		},
	}
}
