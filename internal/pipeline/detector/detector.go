package detector

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/pipeline/detector/policycontroller"
	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/pipeline/detector/preemption"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecontroller"
)

// ReplicaInterpreter is what the detector needs of the resource interpreter.
type ReplicaInterpreter = templatecontroller.ReplicaInterpreter

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
	// InterpreterRetryCap bounds the retry delay of templates whose
	// replicas the interpreter failed to answer (default 5s).
	InterpreterRetryCap time.Duration
	// PropagationPolicyPreemption is the feature gate of that name (alpha,
	// off by default): policies with `preemption: Always` take over
	// templates claimed by weaker policies (package preemption).
	PropagationPolicyPreemption bool
	// PriorityBasedScheduling, MultiplePodTemplatesScheduling and
	// ResourceQuotaEstimate are the feature gates of those names (see
	// templatecontroller.Options).
	PriorityBasedScheduling        bool
	MultiplePodTemplatesScheduling bool
	ResourceQuotaEstimate          bool
	// WorkloadAffinity is the feature gate of that name (alpha, off by
	// default): ResourceBindings name their workload affinity groups.
	WorkloadAffinity bool
}

// Deps are the detector's collaborators, usually from a controller-runtime
// manager.
type Deps struct {
	// Client reads from Cache and writes to the API server.
	Client client.Client
	// APIReader reads from the API server directly (optional): used only
	// when the cache says a binding is missing but creating it conflicts.
	APIReader   client.Reader
	Cache       cache.Informers
	Dynamic     dynamic.Interface
	Discovery   discovery.DiscoveryInterface
	Mapper      meta.RESTMapper
	Interpreter ReplicaInterpreter
	Recorder    record.EventRecorder
}

// Detector wires the template controller, the policy controllers and
// preemption around one template cache and one policy index.
type Detector struct {
	client    client.Client
	recorder  record.EventRecorder
	opts      Options
	cache     *templatecache.Cache
	templates *templatecontroller.Reconciler
}

// New builds a detector.
func New(deps Deps, opts Options) (*Detector, error) {
	tc, err := templatecache.New(deps.Dynamic, deps.Discovery, deps.Mapper, templatecache.Options{
		SkippedPropagatingAPIs:       opts.SkippedPropagatingAPIs,
		SkippedPropagatingNamespaces: opts.SkippedPropagatingNamespaces,
		ResyncPeriod:                 opts.ResyncPeriod,
	})
	if err != nil {
		return nil, err
	}
	return &Detector{
		client: deps.Client, recorder: deps.Recorder, opts: opts, cache: tc,
		templates: templatecontroller.New(templatecontroller.Deps{
			Client: deps.Client, APIReader: deps.APIReader, Informers: deps.Cache, Templates: tc,
			Policies: policyindex.New(), Interpreter: deps.Interpreter, Recorder: deps.Recorder,
		}, templatecontroller.Options{
			Workers: opts.Workers, DiscoveryInterval: opts.DiscoveryInterval, InterpreterRetryCap: opts.InterpreterRetryCap,
			PriorityBasedScheduling:        opts.PriorityBasedScheduling,
			MultiplePodTemplatesScheduling: opts.MultiplePodTemplatesScheduling,
			ResourceQuotaEstimate:          opts.ResourceQuotaEstimate,
			WorkloadAffinity:               opts.WorkloadAffinity,
		}),
	}, nil
}

// SetupWithManager adds the template controller and the two policy
// controllers (with preemption when its gate is on) to mgr.
func (d *Detector) SetupWithManager(mgr ctrl.Manager) error {
	if err := d.templates.SetupWithManager(mgr); err != nil {
		return err
	}
	var preemptor policycontroller.Preemptor
	if d.opts.PropagationPolicyPreemption {
		preemptor = preemption.New(d.client, d.cache, d.recorder)
	}
	return policycontroller.SetupWithManager(mgr, d.client, d.templates, d.cache, preemptor)
}

// RequeueClaimed reconciles every claimed template again (see
// templatecontroller.Reconciler.RequeueClaimed); interpreter layers call
// it when their configuration changes.
func (d *Detector) RequeueClaimed() { d.templates.RequeueClaimed() }

// Templates reads resource templates through the detector's informers
// (falling back to the API server), so other controllers need no informers
// of their own for templates.
type Templates struct{ cache *templatecache.Cache }

// Templates returns the detector's template reader.
func (d *Detector) Templates() Templates { return Templates{cache: d.cache} }

// Get returns a copy of the template, which the caller may modify: decoded
// from the cache, else read from the API server.
func (t Templates) Get(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error) {
	return t.cache.Get(ctx, templatecache.Key{GVK: gvk, Namespace: namespace, Name: name})
}
