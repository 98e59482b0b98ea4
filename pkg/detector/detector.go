package detector

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// ReplicaInterpreter is what the detector needs of the resource interpreter.
type ReplicaInterpreter interface {
	HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) bool
	GetReplicas(ctx context.Context, obj *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error)
}

// Options tune the detector; zero values take Karmada's defaults.
type Options struct {
	// SkippedPropagatingAPIs is --skipped-propagating-apis.
	SkippedPropagatingAPIs string
	// SkippedPropagatingNamespaces is --skipped-propagating-namespaces
	// (default kube-.*).
	SkippedPropagatingNamespaces []string
	// Workers is --concurrent-resource-template-syncs (default 5).
	Workers int
	// DiscoveryInterval is how often new APIs are looked for (default 30s).
	DiscoveryInterval time.Duration
	// ResyncPeriod of the template informers (default none).
	ResyncPeriod time.Duration
	// PropagationPolicyPreemption is the feature gate of that name (alpha,
	// off by default): policies with `preemption: Always` take over
	// templates claimed by weaker policies (see preemption.go).
	PropagationPolicyPreemption bool
}

// Detector watches resource templates and turns them into bindings.
type Detector struct {
	client      client.Client
	apiReader   client.Reader
	cache       cache.Informers
	dynamic     dynamic.Interface
	discovery   discovery.DiscoveryInterface
	mapper      meta.RESTMapper
	interpreter ReplicaInterpreter
	recorder    record.EventRecorder
	opts        Options
	skip        *skipList
	nsFilter    *namespaceFilter

	informers dynamicinformer.DynamicSharedInformerFactory
	mu        sync.RWMutex
	// watched maps each watched GVK to its resource.
	watched map[schema.GroupVersionKind]watchedResource

	queue   workqueue.TypedRateLimitingInterface[templateKey]
	waiting *waitingList
	// idWaiters holds templates until their policy has a permanent id.
	idWaiters *idWaiters
	lazy      *lazyFlags
	pps       *policyIndex
	cpps      *policyIndex
	// ownClaims remembers the resourceVersion of each claim the detector
	// wrote, so the claim's own update event is not reconciled a second
	// time: the reconcile that wrote it already handled that state.
	ownClaims sync.Map // templateKey -> resourceVersion
}

type watchedResource struct {
	gvr        schema.GroupVersionResource
	namespaced bool
}

// templateKey identifies a template in the work queue.
type templateKey struct {
	gvk       schema.GroupVersionKind
	namespace string
	name      string
}

func (k templateKey) String() string {
	return fmt.Sprintf("%s %s/%s", k.gvk.Kind, k.namespace, k.name)
}

// Deps are the detector's collaborators, usually from a controller-runtime
// manager.
type Deps struct {
	// Client reads from Cache and writes to the API server.
	Client client.Client
	// APIReader reads from the API server directly (optional): used only
	// when the cache says a binding is missing, before creating it.
	APIReader   client.Reader
	Cache       cache.Informers
	Dynamic     dynamic.Interface
	Discovery   discovery.DiscoveryInterface
	Mapper      meta.RESTMapper
	Interpreter ReplicaInterpreter
	Recorder    record.EventRecorder
}

// New builds a detector.
func New(deps Deps, opts Options) (*Detector, error) {
	if opts.Workers <= 0 {
		opts.Workers = 5
	}
	if opts.DiscoveryInterval <= 0 {
		opts.DiscoveryInterval = 30 * time.Second
	}
	if opts.SkippedPropagatingNamespaces == nil {
		opts.SkippedPropagatingNamespaces = []string{"kube-.*"}
	}
	skip, err := newSkipList(opts.SkippedPropagatingAPIs)
	if err != nil {
		return nil, err
	}
	nsFilter, err := newNamespaceFilter(opts.SkippedPropagatingNamespaces)
	if err != nil {
		return nil, err
	}
	return &Detector{
		client: deps.Client, apiReader: deps.APIReader, cache: deps.Cache, dynamic: deps.Dynamic, discovery: deps.Discovery, mapper: deps.Mapper,
		interpreter: deps.Interpreter, recorder: deps.Recorder,
		opts: opts, skip: skip, nsFilter: nsFilter,
		informers: dynamicinformer.NewFilteredDynamicSharedInformerFactory(deps.Dynamic, opts.ResyncPeriod, "", nil),
		watched:   map[schema.GroupVersionKind]watchedResource{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[templateKey](),
			workqueue.TypedRateLimitingQueueConfig[templateKey]{Name: "resource-detector"}),
		waiting: newWaitingList(), idWaiters: newIDWaiters(),
		lazy: &lazyFlags{flags: map[templateKey]bool{}},
		pps:  newPolicyIndex(),
		cpps: newPolicyIndex(),
	}, nil
}

// NeedLeaderElection makes the detector run only on the leader.
func (d *Detector) NeedLeaderElection() bool { return true }

// Start runs the detector until ctx ends (manager.Runnable).
func (d *Detector) Start(ctx context.Context) error {
	logger := log.FromContext(ctx).WithName("resource-detector")
	ctx = log.IntoContext(ctx, logger)
	if err := d.watchPolicies(ctx); err != nil {
		return err
	}
	d.discover(ctx)
	go d.discoverEvery(ctx)
	defer d.queue.ShutDown()
	for range d.opts.Workers {
		go d.worker(ctx)
	}
	<-ctx.Done()
	return nil
}

func (d *Detector) discoverEvery(ctx context.Context) {
	t := time.NewTicker(d.opts.DiscoveryInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			d.discover(ctx)
		}
	}
}

func (d *Detector) worker(ctx context.Context) {
	for d.processNext(ctx) {
	}
}

func (d *Detector) processNext(ctx context.Context) bool {
	key, shutdown := d.queue.Get()
	if shutdown {
		return false
	}
	defer d.queue.Done(key)
	logger := log.FromContext(ctx).WithValues("kind", key.gvk.Kind, "namespace", key.namespace, "name", key.name)
	err := d.reconcileTemplate(logr.NewContext(ctx, logger), key, d.lazy.take(key))
	if err != nil {
		logger.V(1).Info("template not synced, will retry", "error", err.Error())
		d.queue.AddRateLimited(key)
		return true
	}
	d.queue.Forget(key)
	return true
}

// waitingList remembers templates no policy matched yet, so that a policy
// created later finds them without listing every resource.
type waitingList struct {
	mu   sync.Mutex
	keys map[templateKey]struct{}
}

func newWaitingList() *waitingList { return &waitingList{keys: map[templateKey]struct{}{}} }

func (w *waitingList) add(k templateKey) (added bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.keys[k]; ok {
		return false
	}
	w.keys[k] = struct{}{}
	return true
}

func (w *waitingList) remove(k templateKey) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.keys, k)
}

func (w *waitingList) snapshot() []templateKey {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]templateKey, 0, len(w.keys))
	for k := range w.keys {
		out = append(out, k)
	}
	return out
}

// lazyFlags remembers, per queued template, whether every change since it
// was queued touched only Karmada-owned metadata (which a policy with
// activationPreference Lazy does not act on). The flag is kept beside the
// queue, not in the key, so the queue still deduplicates a template.
type lazyFlags struct {
	mu    sync.Mutex
	flags map[templateKey]bool
}

// enqueue records lazy for k; any real change makes the pending item non-lazy.
func (d *Detector) enqueue(k templateKey, lazy bool) {
	d.lazy.mu.Lock()
	if prev, ok := d.lazy.flags[k]; ok {
		lazy = prev && lazy
	}
	d.lazy.flags[k] = lazy
	d.lazy.mu.Unlock()
	d.queue.Add(k)
}

func (l *lazyFlags) take(k templateKey) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	v := l.flags[k]
	delete(l.flags, k)
	return v
}
