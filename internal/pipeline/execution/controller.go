package execution

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/membercluster"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/workapply"
	"github.com/propel-mc/propel/internal/shared/workcluster"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// Interpreter is what the execution controller needs of the resource
// interpreter: Retain when updating.
type Interpreter interface {
	HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) bool
	Retain(ctx context.Context, desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error)
}

// StatusOwner writes Work .status; the work-status controller
// (internal/pipeline/status/workstatus) is the one. The execution controller hands it
// the outcome of every sync instead of writing the status itself, so that
// each status field has one writer and the Applied condition and the first
// manifest statuses still cost one write.
type StatusOwner interface {
	Record(work types.NamespacedName, outcome workapply.Outcome)
}

// Recorder records events; record.EventRecorder is one.
type Recorder interface {
	Event(object runtime.Object, eventtype, reason, message string)
}

// Options tune the controller; zero values take Karmada's defaults.
type Options struct {
	// Concurrency is --concurrent-work-syncs (default 5).
	Concurrency int
	// RateLimiter paces retries, e.g. of an unreachable member (default:
	// controller-runtime's, 5ms doubling up to 1000s).
	RateLimiter workqueue.TypedRateLimiter[reconcile.Request]
	// SkipNameValidation lets tests run several managers in one process.
	SkipNameValidation bool
}

// Deps are the controller's collaborators.
type Deps struct {
	// Client reads Works and Clusters from the manager's cache and writes
	// to the control plane.
	Client client.Client
	// Clients builds member clients from Clusters (membercluster.Clients).
	Clients membercluster.ClientSource
	// Informers are the member informers, shared with the work-status
	// controller.
	Informers   *membercluster.Informers
	Interpreter Interpreter
	Recorder    Recorder
	// Status receives the outcome of each sync (required).
	Status StatusOwner
}

// Reconciler is the execution controller.
type Reconciler struct {
	client    client.Client
	clients   membercluster.ClientSource
	informers *membercluster.Informers
	interp    Interpreter
	recorder  Recorder
	status    StatusOwner
	opts      Options
	records   *versionRecords
	refs      *refCache
	events    *membercluster.WorkQueue
}

// New returns the execution controller.
func New(deps Deps, opts Options) *Reconciler {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 5
	}
	return &Reconciler{
		client: deps.Client, clients: deps.Clients, informers: deps.Informers,
		interp: deps.Interpreter, recorder: deps.Recorder, status: deps.Status, opts: opts,
		records: newVersionRecords(), refs: newRefCache(), events: &membercluster.WorkQueue{},
	}
}

// SetupWithManager registers the controller: Works of Push clusters (on
// create, spec change and deletion), Clusters turning Ready, and member
// object changes from the informers.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.status == nil {
		return errors.New("execution controller: no Work status owner")
	}
	r.informers.AddHandler(r.onMemberEvent)
	return workcluster.NewControllerFor(mgr, names.ExecutionControllerName, specOrDeletionChanged(), r.events.Source(), controller.Options{
		MaxConcurrentReconciles: r.opts.Concurrency,
		RateLimiter:             r.opts.RateLimiter,
		SkipNameValidation:      &r.opts.SkipNameValidation,
	}).Complete(r)
}

// specOrDeletionChanged passes creations, spec changes (generation) and
// the start of a deletion; status and metadata-only updates do not pass.
func specOrDeletionChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			return e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() ||
				e.ObjectOld.GetDeletionTimestamp().IsZero() != e.ObjectNew.GetDeletionTimestamp().IsZero()
		},
		DeleteFunc: func(event.DeleteEvent) bool { return false },
	}
}
