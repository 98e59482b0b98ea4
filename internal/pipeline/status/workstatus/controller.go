// Package workstatus owns Work .status: it is the one writer of the
// Applied and Dispatching conditions and of status.manifestStatuses.
//
// The execution controller applies manifests and hands the Outcome of
// each sync to this controller in memory (Record); the reconcile turns it
// into the conditions and reflects the status and health of the applied
// member objects, so that a new Work reaches its first complete status in
// one write. Later changes of member objects arrive through the member
// informers of internal/shared/membercluster and re-queue the owning Work; its
// manifest statuses are refreshed from the informer cache. Each reconcile
// writes at most once, and only when something changed.
//
// Status converges whatever the order in which outcomes and member events
// arrive: a reconcile starts from the controller's own last write when its
// cache of Works has not shown it yet (a write memo), an observation of a
// member object never replaces an entry reflected from a later state of
// that object, a member cache that has not listed yet is read again, and
// every applied Work is reflected again each ResyncPeriod.
package workstatus

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/pipeline/status/manifeststatus"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/workapply"
	"github.com/propel-mc/propel/internal/shared/workcluster"
	"github.com/propel-mc/propel/internal/shared/writememo"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
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
	// ResyncPeriod reflects every applied Work's member objects again this
	// often (with 10% jitter), whether or not an event came, so that a
	// status lost on the way converges; it writes only what differs
	// (default 5m; negative: none).
	ResyncPeriod time.Duration
	// OutcomesOnly records the execution controller's outcomes (Applied
	// and Dispatching) but reflects no member status: Karmada's
	// workStatus controller is disabled while execution runs.
	OutcomesOnly bool
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

// A Work whose member cache has not listed yet is reflected again after
// unsyncedRetry, doubling while the cache does not list, up to
// unsyncedRetryMax.
const (
	unsyncedRetry    = time.Second
	unsyncedRetryMax = 5 * time.Minute
)

// Reconciler is the work-status controller.
type Reconciler struct {
	client    client.Client
	clients   membercluster.ClientSource
	informers *membercluster.Informers
	interp    manifeststatus.Interpreter
	recorder  Recorder
	opts      Options
	// memberEvents re-queues Works after a change of their member
	// objects (delayed); outcomeEvents at once after an Outcome.
	memberEvents, outcomeEvents *membercluster.WorkQueue
	outcomes                    outcomeStore
	// written is the controller's memory of its own status writes until
	// its cache of Works shows them; observed what each written manifest
	// status was reflected from.
	written  *writememo.Memo[types.NamespacedName, writtenStatus]
	observed *observations
	// unsynced paces the retries of Works whose member cache has not
	// listed yet.
	unsynced workqueue.TypedRateLimiter[types.NamespacedName]
}

// writtenStatus is a status write the cache may not show yet. Only the
// status is kept: a status write leaves the rest of the Work as it was.
type writtenStatus struct {
	resourceVersion string
	status          workv1alpha1.WorkStatus
}

// New returns the work-status controller.
func New(deps Deps, opts Options) *Reconciler {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 5
	}
	if opts.MemberEventDelay == 0 {
		opts.MemberEventDelay = time.Second
	}
	if opts.ResyncPeriod == 0 {
		opts.ResyncPeriod = 5 * time.Minute
	}
	return &Reconciler{
		client: deps.Client, clients: deps.Clients, informers: deps.Informers,
		interp: deps.Interpreter, recorder: deps.Recorder, opts: opts,
		memberEvents:  &membercluster.WorkQueue{Delay: max(opts.MemberEventDelay, 0)},
		outcomeEvents: &membercluster.WorkQueue{},
		outcomes:      outcomeStore{m: map[types.NamespacedName]*heldOutcome{}},
		written:       writememo.New[types.NamespacedName, writtenStatus]("work-status"),
		observed:      newObservations(),
		unsynced:      workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](unsyncedRetry, unsyncedRetryMax),
	}
}

// Record takes the Outcome of a sync of the execution controller and
// queues the Work; the latest Outcome of a Work replaces an older one not
// written yet. It does not block.
func (r *Reconciler) Record(work types.NamespacedName, outcome workapply.Outcome) {
	r.outcomes.put(work, hold(outcome))
	r.outcomeEvents.EnqueueWork(work)
}

// SetupWithManager registers the controller: Works of Push clusters (on
// create and spec change), the execution controller's outcomes, Clusters
// turning Ready, and every change of a member object that points back to
// a Work.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if !r.opts.OutcomesOnly {
		r.informers.AddHandler(r.onMemberEvent)
	}
	return workcluster.NewControllerFor(mgr, names.WorkStatusControllerName, specChanged(), r.memberEvents.Source(), controller.Options{
		MaxConcurrentReconciles: r.opts.Concurrency,
		RateLimiter:             r.opts.RateLimiter,
		SkipNameValidation:      &r.opts.SkipNameValidation,
	}).WatchesRawSource(r.outcomeEvents.Source()).Complete(r)
}

// specChanged passes creations, spec changes and deletions (which release
// what the controller remembers of the Work); status writes (its own) do
// not pass.
func specChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			return e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration()
		},
	}
}

// outcomeStore keeps the latest Outcome of each Work until it is written.
type outcomeStore struct {
	mu sync.Mutex
	m  map[types.NamespacedName]*heldOutcome
}

func (s *outcomeStore) put(key types.NamespacedName, o *heldOutcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = o
}

func (s *outcomeStore) get(key types.NamespacedName) *heldOutcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[key]
}

// done drops o once written, unless a newer Outcome replaced it.
func (s *outcomeStore) done(key types.NamespacedName, o *heldOutcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m[key] == o {
		delete(s.m, key)
	}
}
