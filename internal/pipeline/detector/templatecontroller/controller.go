package templatecontroller

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/writememo"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Name is the controller's name (in logs and controller_runtime_* metrics).
const Name = "resource-detector"

// QueueName names the controller's work queue in the workqueue_* metrics:
// Karmada's name of its resource detector queue, which dashboards and
// Karmada's performance scripts select.
const QueueName = "resource detector"

// Key is the controller's request: one template.
type Key = templatecache.Key

// ReplicaInterpreter is what the controller needs of the resource interpreter.
type ReplicaInterpreter interface {
	HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) bool
	GetReplicas(ctx context.Context, obj *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error)
	GetComponents(ctx context.Context, obj *unstructured.Unstructured) ([]workv1alpha2.Component, error)
}

// Deps are the controller's collaborators.
type Deps struct {
	// Client reads from the manager's cache and writes to the API server.
	Client client.Client
	// APIReader reads from the API server directly (optional): used only
	// when the cache says a binding is missing but creating it conflicts.
	APIReader   client.Reader
	Informers   cache.Informers
	Templates   *templatecache.Cache
	Policies    *policyindex.Index
	Interpreter ReplicaInterpreter
	Recorder    record.EventRecorder
}

// Options tune the controller; zero values take Karmada's defaults.
type Options struct {
	// Workers is --concurrent-resource-template-syncs (default 5).
	Workers int
	// DiscoveryInterval is how often new APIs are looked for (default 30s).
	DiscoveryInterval time.Duration
	// InterpreterRetryCap bounds the retry delay of a template whose
	// replicas the interpreter failed to answer (default 5s), so that it
	// converges within seconds once a webhook answers again.
	InterpreterRetryCap time.Duration

	// Feature gates (Karmada's names) the binding spec depends on.

	// PriorityBasedScheduling resolves a policy's schedulePriority into
	// the ResourceBinding's (beta, on by default in Karmada).
	PriorityBasedScheduling bool
	// MultiplePodTemplatesScheduling fills the binding's components from
	// InterpretComponent instead of replicas and requirements (alpha).
	MultiplePodTemplatesScheduling bool
	// ResourceQuotaEstimate fills replicaRequirements.namespace (alpha).
	ResourceQuotaEstimate bool
	// WorkloadAffinity names the template's workload affinity groups in
	// the ResourceBinding (alpha), for the scheduler's WorkloadAffinity
	// and WorkloadAntiAffinity filters.
	WorkloadAffinity bool
}

// Reconciler is the template controller.
type Reconciler struct {
	client      client.Client
	apiReader   client.Reader
	informers   cache.Informers
	templates   *templatecache.Cache
	policies    *policyindex.Index
	interpreter ReplicaInterpreter
	recorder    record.EventRecorder
	opts        Options

	// queue is the controller's work queue (handed to controller-runtime
	// through NewQueue), so that policy events can enqueue templates.
	queue workqueue.TypedRateLimitingInterface[Key]
	// backoff spaces the retries of templates that failed to sync.
	backoff   workqueue.TypedRateLimiter[Key]
	ctrl      controller.TypedController[Key]
	waiting   *waitingList
	idWaiters *idWaiters
	lazy      *lazyFlags
	// ownClaims remembers the claims the controller wrote on templates
	// until their update events arrive, so the claim's own event is not
	// reconciled a second time (the reconcile that wrote it handled that
	// state).
	ownClaims *writememo.Memo[Key, struct{}]
	failures  *failureLog
}

// New builds the template controller; SetupWithManager runs it.
func New(deps Deps, opts Options) *Reconciler {
	if opts.Workers <= 0 {
		opts.Workers = 5
	}
	if opts.DiscoveryInterval <= 0 {
		opts.DiscoveryInterval = 30 * time.Second
	}
	if opts.InterpreterRetryCap <= 0 {
		opts.InterpreterRetryCap = 5 * time.Second
	}
	return &Reconciler{
		client: deps.Client, apiReader: deps.APIReader, informers: deps.Informers, templates: deps.Templates,
		policies: deps.Policies, interpreter: deps.Interpreter, recorder: deps.Recorder, opts: opts,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[Key](),
			workqueue.TypedRateLimitingQueueConfig[Key]{Name: QueueName}),
		backoff: workqueue.DefaultTypedControllerRateLimiter[Key](),
		waiting: newWaitingList(), idWaiters: newIDWaiters(), lazy: newLazyFlags(), ownClaims: writememo.New[Key, struct{}]("detector-claims"),
		failures: newFailureLog(30 * time.Second),
	}
}

// SetupWithManager adds the controller, its policy-index source and its
// discovery loop to mgr. Workers start only once the policy index is
// complete.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	c, err := controller.NewTyped[Key](Name, mgr, controller.TypedOptions[Key]{
		Reconciler:              r,
		MaxConcurrentReconciles: r.opts.Workers,
		NewQueue: func(string, workqueue.TypedRateLimiter[Key]) workqueue.TypedRateLimitingInterface[Key] {
			return r.queue
		},
		UsePriorityQueue: ptr.To(false),
		RecoverPanic:     ptr.To(true),
		LogConstructor: func(k *Key) logr.Logger {
			l := mgr.GetLogger().WithValues("controller", Name)
			if k != nil {
				l = l.WithValues("template", klog.KRef(k.Namespace, k.Name), "kind", k.GVK.Kind)
			}
			return l
		},
	})
	if err != nil {
		return err
	}
	r.ctrl = c
	if err := c.Watch(&policySource{r: r}); err != nil {
		return err
	}
	return mgr.Add(manager.RunnableFunc(r.discoverEvery))
}

// discoverEvery adds a source per newly served kind until ctx ends:
// every DiscoveryInterval, as Karmada's detector re-discovers, and sooner
// while a discovery is partial (an aggregated API not yet available), with
// a backoff from discoveryRetryMin doubling up to the interval, so the
// kinds of the groups found are watched at once and the failing groups
// are added soon after they come up.
func (r *Reconciler) discoverEvery(ctx context.Context) error {
	ctx = log.IntoContext(ctx, log.FromContext(ctx).WithName(Name))
	retry := discoveryRetryMin
	for {
		err := r.templates.Discover(ctx, func(gvk schema.GroupVersionKind, inf toolscache.SharedIndexInformer) error {
			return r.ctrl.Watch(&templateSource{r: r, gvk: gvk, informer: inf})
		})
		var wait time.Duration
		wait, retry = nextDiscovery(err, retry, r.opts.DiscoveryInterval)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// discoveryRetryMin is the first retry delay of a partial discovery.
const discoveryRetryMin = time.Second

// nextDiscovery is the wait before the next discovery after one that
// returned err, and the retry delay after that: the doubling retry delay
// (at most interval) while discovery fails, interval once it succeeds.
func nextDiscovery(err error, retry, interval time.Duration) (wait, next time.Duration) {
	if err == nil {
		return interval, discoveryRetryMin
	}
	wait = min(retry, interval)
	return wait, min(2*retry, interval)
}

// Enqueue queues a template; lazy says the change that queues it touched
// only Karmada's metadata (see lazyFlags).
func (r *Reconciler) Enqueue(k Key, lazy bool) {
	r.lazy.record(k, lazy)
	r.queue.Add(k)
}

// RequeueClaimed reconciles every claimed template again. It is called when
// the resource interpreter's configuration changes: a template bound while
// no webhook or customization knew its kind must get its replicas
// re-interpreted, without waiting for the template itself to change.
func (r *Reconciler) RequeueClaimed() {
	r.templates.Each(func(t *templatecache.Template) {
		if policyindex.ClaimOf(t).ID == "" {
			return
		}
		if k, ok := r.templates.KeyOf(t); ok {
			r.Enqueue(k, false)
		}
	})
}

// Reconcile syncs one template. Failures are retried with the controller's
// backoff, capped for interpreter failures (see failures.go); they are not
// returned as errors, which controller-runtime would log at error level on
// every retry.
func (r *Reconciler) Reconcile(ctx context.Context, k Key) (reconcile.Result, error) {
	lazy := r.lazy.take(k)
	err := r.reconcileTemplate(ctx, k, lazy)
	if err == nil {
		r.backoff.Forget(k)
		r.failures.forget(k)
		return reconcile.Result{}, nil
	}
	// The retry stands for the same change: a Lazy policy must not act on
	// it just because the first attempt failed.
	r.lazy.record(k, lazy)
	delay := r.backoff.When(k)
	if ie, ok := asInterpreterError(err); ok {
		delay = min(delay, r.opts.InterpreterRetryCap)
		r.failures.log(ctx, k, ie, delay)
		return reconcile.Result{RequeueAfter: delay}, nil
	}
	log.FromContext(ctx).V(1).Info("template not synced, will retry", "reason", boundedtext.String(err.Error()), "retryIn", delay)
	return reconcile.Result{RequeueAfter: delay}, nil
}
