// Package dependencies owns the dependencies distributor: for a
// ResourceBinding with propagateDeps, it asks the resource interpreter what
// the workload depends on (ConfigMaps, Secrets, ServiceAccounts, PVCs, or
// whatever a webhook or Lua script names) and keeps one attached
// ResourceBinding per dependency, whose requiredBy carries the workload's
// clusters, so the binding controller sends the dependency along. Attached
// bindings are released when no workload needs them any more.
package dependencies

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Interpreter is what the distributor needs of the resource interpreter.
type Interpreter interface {
	HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) bool
	GetDependencies(ctx context.Context, obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error)
}

// TemplateReader reads resource templates (normally from the detector's
// informers).
type TemplateReader interface {
	Get(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error)
}

// Distributor reconciles independent ResourceBindings.
type Distributor struct {
	Client      client.Client
	Dynamic     dynamic.Interface
	Mapper      meta.RESTMapper
	Interpreter Interpreter
	Templates   TemplateReader
	Recorder    record.EventRecorder
	Workers     int

	informers dynamicinformer.DynamicSharedInformerFactory
	mu        sync.Mutex
	watched   map[schema.GroupVersionResource]bool
	events    chan event.TypedGenericEvent[*workv1alpha2.ResourceBinding]
	stop      <-chan struct{}
}

// SetupWithManager registers the distributor as "dependencies-distributor".
func (d *Distributor) SetupWithManager(mgr ctrl.Manager) error {
	d.informers = dynamicinformer.NewDynamicSharedInformerFactory(d.Dynamic, 0)
	d.watched = map[schema.GroupVersionResource]bool{}
	d.events = make(chan event.TypedGenericEvent[*workv1alpha2.ResourceBinding], 1024)
	if err := mgr.Add(runnableFunc(func(ctx context.Context) error {
		d.mu.Lock()
		d.stop = ctx.Done()
		d.mu.Unlock()
		d.informers.Start(ctx.Done())
		<-ctx.Done()
		return nil
	})); err != nil {
		return err
	}
	if d.Workers <= 0 {
		d.Workers = 2
	}
	return ctrl.NewControllerManagedBy(mgr).Named("dependencies-distributor").
		For(&workv1alpha2.ResourceBinding{}, builder.WithPredicates(bindingPredicate())).
		WatchesRawSource(source.Channel(d.events, &handler.TypedEnqueueRequestForObject[*workv1alpha2.ResourceBinding]{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: d.Workers}).
		Complete(d)
}

type runnableFunc func(ctx context.Context) error

func (f runnableFunc) Start(ctx context.Context) error { return f(ctx) }

// bindingPredicate passes the events of bindings that do or did propagate
// dependencies, as Karmada's filter does.
func bindingPredicate() predicate.Predicate {
	deps := func(o client.Object) bool {
		rb, ok := o.(*workv1alpha2.ResourceBinding)
		return ok && rb.Spec.PropagateDeps
	}
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool {
			rb, ok := e.Object.(*workv1alpha2.ResourceBinding)
			return ok && rb.Spec.PropagateDeps && len(rb.Spec.Clusters) > 0
		},
		UpdateFunc: func(e event.UpdateEvent) bool {
			return e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() && (deps(e.ObjectOld) || deps(e.ObjectNew))
		},
		DeleteFunc:  func(e event.DeleteEvent) bool { return deps(e.Object) },
		GenericFunc: func(event.GenericEvent) bool { return true },
	}
}

// Reconcile syncs the attached bindings of one independent binding.
func (d *Distributor) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	rb := &workv1alpha2.ResourceBinding{}
	if err := d.Client.Get(ctx, req.NamespacedName, rb); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !rb.Spec.PropagateDeps || rb.DeletionTimestamp != nil {
		return reconcile.Result{}, d.detachAll(ctx, rb)
	}
	return reconcile.Result{}, d.distribute(ctx, rb)
}

// dependenciesOf returns the template's dependencies, or ok=false when the
// template is gone or its kind has no dependency hook.
func (d *Distributor) dependenciesOf(ctx context.Context, rb *workv1alpha2.ResourceBinding) ([]configv1alpha1.DependentObjectReference, bool, error) {
	r := rb.Spec.Resource
	gv, err := schema.ParseGroupVersion(r.APIVersion)
	if err != nil {
		return nil, false, fmt.Errorf("binding %s/%s: resource apiVersion %q: %w", rb.Namespace, rb.Name, r.APIVersion, err)
	}
	gvk := gv.WithKind(r.Kind)
	template, err := d.Templates.Get(ctx, gvk, r.Namespace, r.Name)
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !d.Interpreter.HookEnabled(gvk, configv1alpha1.InterpreterOperationInterpretDependency) {
		return nil, false, nil
	}
	refs, err := d.Interpreter.GetDependencies(ctx, template)
	if err != nil {
		// A script's or webhook's text can be megabytes long.
		err = boundedtext.Error(err)
		d.Recorder.Eventf(template, corev1.EventTypeWarning, EventReasonGetDependenciesFailed, "Get dependencies of %s %s/%s failed: %v", r.Kind, r.Namespace, r.Name, err)
		return nil, false, err
	}
	d.Recorder.Eventf(template, corev1.EventTypeNormal, EventReasonGetDependenciesSucceed, "Get dependencies(%s) succeed", boundedtext.String(refsString(refs)))
	return refs, true, nil
}

func refsString(refs []configv1alpha1.DependentObjectReference) string {
	b, _ := json.Marshal(refs)
	return string(b)
}
