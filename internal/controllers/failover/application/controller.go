package application

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/app/controllermanager/recorder"
	"github.com/propel-mc/propel/internal/controllers/failover/eviction"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// RBAC: unhealthy copies are evicted from bindings (update).
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings;clusterresourcebindings,verbs=get;list;watch;update

// Karmada's controller names, which are also the producers of the tasks
// they write.
const (
	ResourceBindingControllerName        = "resource-binding-application-failover-controller"
	ClusterResourceBindingControllerName = "cluster-resource-binding-application-failover-controller"
)

// defaultTolerationSeconds is the CRD default of
// decisionConditions.tolerationSeconds, for bindings written without it.
const defaultTolerationSeconds = 300

// errGracefulEvictionDisabled is Karmada's refusal to write a Gracefully
// task while the GracefulEviction gate is off.
var errGracefulEvictionDisabled = errors.New("GracefulEviction featureGate must be enabled when purgeMode is Gracefully")

// HealthHooks tells whether the interpreter assesses a kind's health
// (resourceinterpreter.Interpreter).
type HealthHooks interface {
	HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) bool
}

// Deps are the controllers' collaborators; Client and Recorder default to
// the manager's.
type Deps struct {
	Client      client.Client
	Interpreter HealthHooks
	// Recorder records EvictWorkloadFromClusterFailed; nil takes one per
	// controller name from the manager.
	Recorder record.EventRecorder
}

// Options are the feature gates the controllers follow.
type Options struct {
	// GracefulEviction is the gate of that name: off, a Gracefully task is
	// refused (and retried), as in Karmada.
	GracefulEviction bool
	// StatePreservation is the StatefulFailoverInjection gate: tasks carry
	// preservedLabelState and clustersBeforeFailover.
	StatePreservation bool
}

// kind is what differs between the two controllers.
type kind struct {
	name      string
	newObject func() workv1alpha2.Binding
	// needsPropagateDeps: Karmada's RB controller skips bindings without
	// propagateDeps; its CRB controller does not check.
	needsPropagateDeps bool
}

var kinds = []kind{
	{name: ResourceBindingControllerName, newObject: func() workv1alpha2.Binding { return &workv1alpha2.ResourceBinding{} }, needsPropagateDeps: true},
	{name: ClusterResourceBindingControllerName, newObject: func() workv1alpha2.Binding { return &workv1alpha2.ClusterResourceBinding{} }},
}

// reconciler is one application failover controller.
type reconciler struct {
	Deps
	opts  Options
	kind  kind
	since *unhealthySince
	now   func() time.Time
}

// SetupWithManager registers the ResourceBinding and
// ClusterResourceBinding application failover controllers.
func SetupWithManager(mgr manager.Manager, deps Deps, opts Options) error {
	if deps.Interpreter == nil {
		return errors.New("application failover: an Interpreter is required")
	}
	if deps.Client == nil {
		deps.Client = mgr.GetClient()
	}
	for _, k := range kinds {
		r := &reconciler{Deps: deps, opts: opts, kind: k, since: newUnhealthySince(), now: time.Now}
		if r.Recorder == nil {
			r.Recorder = recorder.For(mgr, k.name)
		}
		err := builder.ControllerManagedBy(mgr).Named(k.name).
			For(k.newObject(), builder.WithPredicates(withApplicationFailover())).
			Complete(r)
		if err != nil {
			return fmt.Errorf("set up %s: %w", k.name, err)
		}
	}
	return nil
}

// withApplicationFailover passes bindings with failover.application (on
// either side of an update: removing it must clear the records); every
// spec or status update counts. Deletions pass so that the records go.
func withApplicationFailover() predicate.Funcs {
	has := func(obj client.Object) bool {
		b, ok := obj.(workv1alpha2.Binding)
		return ok && b.BindingSpec().Failover != nil && b.BindingSpec().Failover.Application != nil
	}
	return predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return has(e.Object) },
		UpdateFunc:  func(e event.UpdateEvent) bool { return has(e.ObjectOld) || has(e.ObjectNew) },
		DeleteFunc:  func(e event.DeleteEvent) bool { return true },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// Reconcile times the binding's Unhealthy clusters and evicts those past
// their toleration.
func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	key := req.NamespacedName
	b := r.kind.newObject()
	if err := r.Client.Get(ctx, key, b); err != nil {
		r.since.forget(key)
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	logger := log.FromContext(ctx).WithValues("binding", klog.KObj(b))
	ctx = log.IntoContext(ctx, logger)
	if !r.eligible(b) {
		r.since.forget(key)
		return reconcile.Result{}, nil
	}
	return r.detect(ctx, key, b)
}

// eligible: a live binding with failover.application, collected status,
// a kind whose health the interpreter assesses and (RB only)
// propagateDeps.
func (r *reconciler) eligible(b workv1alpha2.Binding) bool {
	spec := b.BindingSpec()
	if b.GetDeletionTimestamp() != nil || spec.Failover == nil || spec.Failover.Application == nil ||
		len(b.BindingStatus().AggregatedStatus) == 0 || (r.kind.needsPropagateDeps && !spec.PropagateDeps) {
		return false
	}
	gvk := schema.FromAPIVersionAndKind(spec.Resource.APIVersion, spec.Resource.Kind)
	return r.Interpreter.HookEnabled(gvk, configv1alpha1.InterpreterOperationInterpretHealth)
}

// detect is Karmada's decision: a cluster Unhealthy (without a task) is
// timed from the first time it is seen so; past tolerationSeconds it is
// evicted. Healthy or Unknown clears its record, as does leaving
// spec.clusters. It requeues for the nearest deadline.
func (r *reconciler) detect(ctx context.Context, key types.NamespacedName, b workv1alpha2.Binding) (reconcile.Result, error) {
	spec := b.BindingSpec()
	toleration := time.Duration(ptr.Deref(spec.Failover.Application.DecisionConditions.TolerationSeconds, defaultTolerationSeconds)) * time.Second
	now := r.now()
	var due []string
	var wait []time.Duration
	recovered := map[string]bool{}
	for _, item := range b.BindingStatus().AggregatedStatus {
		if item.Health != workv1alpha2.ResourceUnhealthy {
			recovered[item.ClusterName] = true
			continue
		}
		if eviction.HasTask(spec, item.ClusterName) {
			continue
		}
		since, first := r.since.observe(key, item.ClusterName, now)
		elapsed := now.Sub(since)
		switch {
		case first:
			wait = append(wait, toleration)
		case elapsed > toleration:
			due = append(due, item.ClusterName)
		default:
			// Karmada counts whole seconds elapsed.
			wait = append(wait, toleration-elapsed.Truncate(time.Second))
		}
	}
	if len(due) > 0 {
		if err := r.evict(ctx, b, due); err != nil {
			return reconcile.Result{}, err
		}
	}
	targets := map[string]bool{}
	for _, tc := range spec.Clusters {
		targets[tc.Name] = true
	}
	r.since.keep(key, func(c string) bool { return targets[c] && !recovered[c] })
	if len(wait) == 0 {
		return reconcile.Result{}, nil
	}
	return reconcile.Result{RequeueAfter: slices.Min(wait)}, nil
}

// evict takes clusters off b with one task each and writes b once. A
// failed write records EvictWorkloadFromClusterFailed per cluster and is
// retried (the records stay, so the retry evicts at once).
func (r *reconciler) evict(ctx context.Context, b workv1alpha2.Binding, clusters []string) error {
	spec := b.BindingSpec()
	app := spec.Failover.Application
	before := make([]string, 0, len(spec.Clusters))
	for _, tc := range spec.Clusters {
		before = append(before, tc.Name)
	}
	for _, cluster := range clusters {
		opts, err := r.taskOptions(b, app, cluster, before)
		if err != nil {
			return fmt.Errorf("evict %s %s from cluster %s: %w", b.BindingKind(), klog.KObj(b), cluster, err)
		}
		eviction.EvictCluster(b, cluster, opts)
	}
	if err := r.Client.Update(ctx, b); err != nil {
		for _, cluster := range clusters {
			eviction.RecordFailed(r.Recorder, b, cluster)
		}
		return fmt.Errorf("evict %s %s from clusters %v: %w", b.BindingKind(), klog.KObj(b), clusters, err)
	}
	log.FromContext(ctx).Info("evicted unhealthy application", "clusters", clusters, "purgeMode", app.PurgeMode)
	return nil
}

// taskOptions are the task fields for an eviction from cluster.
func (r *reconciler) taskOptions(b workv1alpha2.Binding, app *policyv1alpha1.ApplicationFailoverBehavior, cluster string, before []string) (eviction.Options, error) {
	opts := eviction.Options{PurgeMode: app.PurgeMode, Producer: r.kind.name, Reason: workv1alpha2.EvictionReasonApplicationFailure}
	switch app.PurgeMode {
	case policyv1alpha1.PurgeModeGracefully:
		if !r.opts.GracefulEviction {
			return opts, errGracefulEvictionDisabled
		}
		opts.GracePeriodSeconds = app.GracePeriodSeconds
	case policyv1alpha1.PurgeModeNever:
		opts.SuppressDeletion = ptr.To(true)
	}
	if r.opts.StatePreservation && app.StatePreservation != nil && len(app.StatePreservation.Rules) > 0 {
		state, err := eviction.PreservedLabelStateOf(b, cluster, app.StatePreservation.Rules)
		if err != nil {
			return opts, err
		}
		opts.PreservedLabelState, opts.ClustersBeforeFailover = state, before
	}
	return opts, nil
}
