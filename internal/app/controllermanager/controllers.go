package controllermanager

import (
	"context"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/app/controllermanager/recorder"
	"github.com/propel-mc/propel/internal/app/schedulermanager"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/builtin"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua"
	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook"
	"github.com/propel-mc/propel/internal/pipeline/binding"
	"github.com/propel-mc/propel/internal/pipeline/dependencies"
	"github.com/propel-mc/propel/internal/pipeline/detector"
	"github.com/propel-mc/propel/internal/shared/names"
)

// setupBinding starts the ResourceBinding and ClusterResourceBinding
// controllers (Karmada's "binding").
func setupBinding(_ context.Context, c *Context) error {
	b, err := binding.New(binding.Deps{
		Client: c.Manager.GetClient(), APIReader: c.Manager.GetAPIReader(),
		Templates: c.Templates, Interpreter: c.Interpreter,
		Recorder: recorder.For(c.Manager, "binding-controller"),
	}, binding.Options{
		Workers: c.Options.ConcurrentBindingSyncs, ClusterWorkers: c.Options.ConcurrentClusterBindingSyncs,
		StatefulFailoverInjection: c.Options.FeatureGates.Enabled(commandline.StatefulFailoverInjection),
	})
	if err != nil {
		return err
	}
	return b.SetupWithManager(c.Manager)
}

// setupScheduler runs the scheduler in-process when --controllers names it
// (Karmada runs it as karmada-scheduler, which '*' leaves in charge). With
// leader election it schedules only while it also holds karmada-scheduler's
// Lease, in --leader-elect-resource-namespace, like any other scheduler.
func setupScheduler(_ context.Context, c *Context) error {
	mgr := c.Manager
	if o := c.Options; o.LeaderElect {
		gate := &leaseGate{
			config: mgr.GetConfig(), namespace: o.LeaderElectResourceNamespace, name: names.SchedulerLease,
			duration: o.LeaseDuration, renew: o.RenewDeadline, retry: o.RetryPeriod,
			logger: ctrl.Log.WithName("scheduler"),
		}
		if err := mgr.Add(gate); err != nil {
			return err
		}
		mgr = gatedManager{Manager: mgr, gate: gate}
	}
	return schedulermanager.SetupScheduler(mgr, c.Options.Scheduling, c.Options.FeatureGates)
}

// detectorDiscoveryTimeout bounds each request of the detector's
// discovery: an aggregated API server that accepts a connection and never
// answers must fail its group (which is retried) rather than stall every
// later discovery, and with it the kinds served after startup.
const detectorDiscoveryTimeout = 30 * time.Second

// detectorDiscovery is the detector's discovery client: cfg with every
// request bounded by timeout (cfg itself also serves the template
// watches, which must not be cut).
func detectorDiscovery(cfg *rest.Config, timeout time.Duration) (*discovery.DiscoveryClient, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = timeout
	return discovery.NewDiscoveryClientForConfig(cfg)
}

func setupDetector(_ context.Context, c *Context) error {
	// The detector watches every served API, deprecated ones included
	// (templates may use them); their deprecation warnings are noise.
	cfg := rest.CopyConfig(c.Manager.GetConfig())
	cfg.WarningHandler = rest.NoWarnings{}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	disc, err := detectorDiscovery(cfg, detectorDiscoveryTimeout)
	if err != nil {
		return err
	}
	d, err := detector.New(detector.Deps{
		Client: c.Manager.GetClient(), APIReader: c.Manager.GetAPIReader(), Cache: c.Manager.GetCache(), Dynamic: dyn, Discovery: disc,
		Mapper: c.Manager.GetRESTMapper(), Interpreter: c.Interpreter,
		Recorder: recorder.For(c.Manager, "resource-detector"),
	}, detector.Options{
		SkippedPropagatingAPIs:         c.Options.SkippedPropagatingAPIs,
		SkippedPropagatingNamespaces:   c.Options.SkippedPropagatingNamespaces,
		Workers:                        c.Options.ConcurrentTemplateSyncs,
		PropagationPolicyPreemption:    c.Options.FeatureGates.Enabled(commandline.PropagationPolicyPreemption),
		PriorityBasedScheduling:        c.Options.FeatureGates.Enabled(commandline.PriorityBasedScheduling),
		MultiplePodTemplatesScheduling: c.Options.FeatureGates.Enabled(commandline.MultiplePodTemplatesScheduling),
		ResourceQuotaEstimate:          c.Options.FeatureGates.Enabled(commandline.ResourceQuotaEstimate),
		WorkloadAffinity:               c.Options.FeatureGates.Enabled(commandline.WorkloadAffinity),
	})
	if err != nil {
		return err
	}
	c.Templates = d.Templates()
	for _, r := range c.reloaders {
		r.OnLoad(d.RequeueClaimed)
	}
	return d.SetupWithManager(c.Manager)
}

// setupDependenciesDistributor starts the dependencies distributor unless
// the PropagateDeps gate is off (as in Karmada).
func setupDependenciesDistributor(_ context.Context, c *Context) error {
	if !c.Options.FeatureGates.Enabled(commandline.PropagateDeps) {
		ctrl.Log.WithName("controller-manager").Info("dependencies distributor disabled", "featureGate", commandline.PropagateDeps)
		return nil
	}
	dyn, err := dynamic.NewForConfig(c.Manager.GetConfig())
	if err != nil {
		return err
	}
	return (&dependencies.Distributor{
		Client: c.Manager.GetClient(), Dynamic: dyn, Mapper: c.Manager.GetRESTMapper(),
		Interpreter: c.Interpreter, Templates: c.Templates,
		Recorder: recorder.For(c.Manager, "dependencies-distributor"),
		Workers:  c.Options.ConcurrentDependentSyncs,
	}).SetupWithManager(c.Manager)
}

// newInterpreter builds the shared resource interpreter. The webhook and
// Lua customization layers follow their configuration objects through the
// manager's cache once the manager starts; until their first load they
// answer "not ready" rather than letting a lower layer answer.
func newInterpreter(c *Context) (*resourceinterpreter.Interpreter, error) {
	mgr, o := c.Manager, c.Options
	var nativeOpts []native.Option
	var luaOpts []lua.Option
	if o.FeatureGates.Enabled(commandline.ResourceQuotaEstimate) {
		// Karmada reports the pods' priorityClassName in replica
		// requirements under this gate, from its native interpretation and
		// from the Lua kube.accuratePodRequirements alike.
		nativeOpts = append(nativeOpts, native.WithPriorityClassName())
		luaOpts = append(luaOpts, lua.WithPriorityClassName())
	}
	wh := webhook.New(webhook.Options{Services: mgr.GetClient()})
	customizations := customization.New(customization.Options{
		VM:       lua.New(luavm.Options{}, luaOpts...),
		Recorder: recorder.For(mgr, "resource-interpreter"),
	})
	builtins := builtin.New(customization.Options{VM: lua.New(luavm.Options{}, luaOpts...)})
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		if err := wh.Watch(ctx, mgr.GetCache()); err != nil {
			return err
		}
		if err := customizations.Watch(ctx, mgr.GetCache()); err != nil {
			return err
		}
		<-ctx.Done()
		return nil
	})); err != nil {
		return nil, err
	}
	c.reloaders = append(c.reloaders, wh, customizations)
	layers, err := resourceinterpreter.Layers{
		Webhook: wh, Customization: customizations, Builtin: builtins, Native: native.New(nativeOpts...),
	}.Ordered(resourceinterpreter.Precedence(o.InterpreterPrecedence))
	if err != nil {
		return nil, err
	}
	ri := resourceinterpreter.New(layers...)
	ri.RecordEvents(recorder.For(mgr, "resource-interpreter"), 0)
	return ri, nil
}
