package binding

import (
	"errors"
	"fmt"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/propel-mc/propel/internal/app/controllermanager/recorder"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// Deps are the controller's collaborators. Client, APIReader, Templates
// and Recorder default to the manager's in SetupWithManager (a recorder
// per controller name); Interpreter is required.
type Deps struct {
	// Client reads from the manager's cache and writes to the API server.
	Client client.Client
	// APIReader reads from the API server, for conflict retries.
	APIReader client.Reader
	// Templates reads resource templates (the detector's informers in
	// production; a DynamicTemplateReader by default).
	Templates   TemplateReader
	Interpreter Interpreter
	// Recorder records events on bindings and templates.
	Recorder record.EventRecorder
}

// Options tune the controllers; zero values take Karmada's defaults.
type Options struct {
	// Workers is --concurrent-resourcebinding-syncs (default 5).
	Workers int
	// ClusterWorkers is --concurrent-clusterresourcebinding-syncs (default 5).
	ClusterWorkers int
	// WorkWriters is how many Works of one binding are written at a time
	// (default 8); Karmada writes them one after another.
	WorkWriters int
	// StatefulFailoverInjection is the gate of that name: the preserved
	// labels of the last Directly eviction task go into the manifest for
	// the new cluster (see preservedLabels).
	StatefulFailoverInjection bool
}

// Controller runs the ResourceBinding and ClusterResourceBinding
// controllers.
type Controller struct {
	deps Deps
	opts Options
}

// New returns a Controller; call SetupWithManager to run it.
func New(deps Deps, opts Options) (*Controller, error) {
	if deps.Interpreter == nil {
		return nil, errors.New("binding controller: an Interpreter is required")
	}
	if opts.Workers <= 0 {
		opts.Workers = 5
	}
	if opts.ClusterWorkers <= 0 {
		opts.ClusterWorkers = 5
	}
	if opts.WorkWriters <= 0 {
		opts.WorkWriters = 8
	}
	return &Controller{deps: deps, opts: opts}, nil
}

// SetupWithManager registers both controllers. They list Works through
// the indexes of internal/shared/index, which the manager must have (AddDefaultIndexes).
func (c *Controller) SetupWithManager(mgr ctrl.Manager) error {
	if err := c.defaultDeps(mgr); err != nil {
		return err
	}
	for _, k := range []*bindingKind{rbKind, crbKind} {
		if err := c.setupKind(mgr, k); err != nil {
			return fmt.Errorf("set up %s: %w", k.controllerName, err)
		}
	}
	return nil
}

func (c *Controller) defaultDeps(mgr ctrl.Manager) error {
	if c.deps.Client == nil {
		c.deps.Client = mgr.GetClient()
	}
	if c.deps.APIReader == nil {
		c.deps.APIReader = mgr.GetAPIReader()
	}
	if c.deps.Templates == nil {
		dyn, err := dynamic.NewForConfig(mgr.GetConfig())
		if err != nil {
			return fmt.Errorf("binding controller: dynamic client: %w", err)
		}
		c.deps.Templates = NewDynamicTemplateReader(dyn, mgr.GetRESTMapper())
	}
	return nil
}

func (c *Controller) setupKind(mgr ctrl.Manager, k *bindingKind) error {
	r := &reconciler{Deps: c.deps, kind: k, writers: c.opts.WorkWriters, injectPreservedLabels: c.opts.StatefulFailoverInjection}
	if r.Recorder == nil {
		r.Recorder = recorder.For(mgr, k.controllerName)
	}
	workers := c.opts.Workers
	b := ctrl.NewControllerManagedBy(mgr).
		Named(k.controllerName).
		For(k.newObject(), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&policyv1alpha1.ClusterOverridePolicy{}, handler.EnqueueRequestsFromMapFunc(r.bindingsOfPolicy),
			builder.WithPredicates(predicate.GenerationChangedPredicate{}))
	if k == rbKind {
		b = b.Watches(&policyv1alpha1.OverridePolicy{}, handler.EnqueueRequestsFromMapFunc(r.bindingsOfPolicy),
			builder.WithPredicates(predicate.GenerationChangedPredicate{}))
	} else {
		workers = c.opts.ClusterWorkers
	}
	return b.WithOptions(controller.Options{MaxConcurrentReconciles: workers}).Complete(r)
}
