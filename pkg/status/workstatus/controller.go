// Package workstatus owns the work-status controller: for every applied
// Work of a Push-mode cluster it reflects the status and interprets the
// health of each manifest's member object, and records them in the Work's
// status.manifestStatuses. Member objects are read from the member
// informers of pkg/membercluster, whose events re-queue the owning Work.
// The status is written only when it changed.
package workstatus

import (
	"time"

	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/pkg/membercluster"
	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/pkg/status/manifeststatus"
	"github.com/propel-mc/propel/pkg/workcluster"
)

// Recorder records events; record.EventRecorder is one.
type Recorder interface {
	Event(object runtime.Object, eventtype, reason, message string)
}

// Options tune the controller; zero values take Karmada's defaults.
type Options struct {
	// Concurrency is --concurrent-work-syncs (default 5).
	Concurrency int
	// RateLimiter paces retries (default: controller-runtime's).
	RateLimiter workqueue.TypedRateLimiter[reconcile.Request]
	// MemberEventDelay holds a Work back after a change of its member
	// objects, so that the steps of a rollout cost one status write
	// (default 1s; negative: none, as Karmada).
	MemberEventDelay time.Duration
	// SkipNameValidation lets tests run several managers in one process.
	SkipNameValidation bool
}

// Deps are the controller's collaborators.
type Deps struct {
	Client      client.Client
	Clients     membercluster.ClientSource
	Informers   *membercluster.Informers
	Interpreter manifeststatus.Interpreter
	Recorder    Recorder
}

// Reconciler is the work-status controller.
type Reconciler struct {
	client    client.Client
	clients   membercluster.ClientSource
	informers *membercluster.Informers
	interp    manifeststatus.Interpreter
	recorder  Recorder
	opts      Options
	events    *membercluster.WorkQueue
}

// New returns the work-status controller.
func New(deps Deps, opts Options) *Reconciler {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 5
	}
	if opts.MemberEventDelay == 0 {
		opts.MemberEventDelay = time.Second
	}
	return &Reconciler{
		client: deps.Client, clients: deps.Clients, informers: deps.Informers,
		interp: deps.Interpreter, recorder: deps.Recorder, opts: opts,
		events: &membercluster.WorkQueue{Delay: max(opts.MemberEventDelay, 0)},
	}
}

// SetupWithManager registers the controller: Works of Push clusters (on
// create, spec change and a change of Applied), Clusters turning Ready,
// and every change of a member object that points back to a Work.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.informers.AddHandler(r.onMemberEvent)
	return workcluster.NewControllerFor(mgr, names.WorkStatusControllerName, specOrAppliedChanged(), r.events.Source(), controller.Options{
		MaxConcurrentReconciles: r.opts.Concurrency,
		RateLimiter:             r.opts.RateLimiter,
		SkipNameValidation:      &r.opts.SkipNameValidation,
	}).Complete(r)
}

// specOrAppliedChanged passes creations, spec changes and changes of the
// Applied condition's status; its own manifestStatuses writes do not pass.
func specOrAppliedChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldW, okOld := e.ObjectOld.(*workv1alpha1.Work)
			newW, okNew := e.ObjectNew.(*workv1alpha1.Work)
			if !okOld || !okNew {
				return false
			}
			return oldW.Generation != newW.Generation || applied(oldW) != applied(newW)
		},
		DeleteFunc: func(event.DeleteEvent) bool { return false },
	}
}

func applied(work *workv1alpha1.Work) bool {
	return meta.IsStatusConditionTrue(work.Status.Conditions, workv1alpha1.WorkApplied)
}
