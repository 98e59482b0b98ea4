package bindingstatus

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/pipeline/status/templatestatus"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/index"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// RBAC: binding status aggregates the status of the binding's Works.
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings;clusterresourcebindings;works,verbs=get;list;watch
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings/status;clusterresourcebindings/status,verbs=update

// Event reasons of the binding status controllers (Karmada's strings),
// recorded on the template whose status was aggregated.
const (
	EventReasonAggregateStatusSucceed = "AggregateStatusSucceed"
	EventReasonAggregateStatusFailed  = "AggregateStatusFailed"
)

// Reconcile aggregates one binding in phases: collect its Works, write the
// binding status if it changed, then the template status if it changed.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	binding := r.kind.newBinding()
	if err := r.client.Get(ctx, req.NamespacedName, binding); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	spec, status := binding.BindingSpec(), binding.BindingStatus()
	// No lastScheduledTime check here (only in the predicate on binding
	// events): the binding of a dependency is never scheduled, its Works
	// follow the bindings that require it, and their status counts.
	if !binding.GetDeletionTimestamp().IsZero() {
		return reconcile.Result{}, nil
	}
	if workv1alpha2.PermanentID(binding) == "" {
		log.FromContext(ctx).Info("binding has no permanent id yet, its works cannot be found",
			"binding", klog.KObj(binding), "label", binding.PermanentIDLabel())
		return reconcile.Result{}, nil
	}
	items, err := r.collect(ctx, binding)
	if err != nil {
		err = boundedtext.Error(err)
		r.recorder.Event(binding, corev1.EventTypeWarning, EventReasonAggregateStatusFailed, err.Error())
		return reconcile.Result{}, fmt.Errorf("%s %s: %w", r.kind.controllerName, req, err)
	}
	if nothingToReport(status, items) {
		return reconcile.Result{}, nil
	}
	if err := r.writeStatus(ctx, binding, items); err != nil {
		return reconcile.Result{}, fmt.Errorf("%s %s: %w", r.kind.controllerName, req, err)
	}
	return reconcile.Result{}, r.syncTemplate(ctx, spec.Resource, templateItems(spec, items))
}

// collect lists the binding's live Works by its permanent id and turns
// them into aggregated items.
func (r *Reconciler) collect(ctx context.Context, binding workv1alpha2.Binding) ([]workv1alpha2.AggregatedStatusItem, error) {
	list := &workv1alpha1.WorkList{}
	if err := r.client.List(ctx, list, index.WorksOf(binding)); err != nil {
		return nil, fmt.Errorf("list works: %w", err)
	}
	works := list.Items[:0]
	for _, w := range list.Items {
		if w.DeletionTimestamp.IsZero() {
			works = append(works, w)
		}
	}
	return aggregateItems(works, binding.BindingSpec().Resource)
}

// writeStatus records items and FullyApplied when either changed. The
// update is conditional on the version read: the scheduler writes other
// fields of the same status.
func (r *Reconciler) writeStatus(ctx context.Context, binding workv1alpha2.Binding, items []workv1alpha2.AggregatedStatusItem) error {
	updated := binding.DeepCopyObject().(workv1alpha2.Binding)
	spec, status := updated.BindingSpec(), updated.BindingStatus()
	sameItems := itemsEqual(status.AggregatedStatus, items)
	condChanged := meta.SetStatusCondition(&status.Conditions, fullyApplied(spec, items))
	if sameItems && !condChanged {
		return nil
	}
	status.AggregatedStatus = items
	// An update conditional on the version read (as the optimistic-lock
	// patch it replaces was): the API server then decodes the request
	// instead of encoding the stored binding, merging and decoding.
	if err := r.client.Status().Update(ctx, updated); err != nil {
		return fmt.Errorf("update status: %w", err)
	}
	log.FromContext(ctx).V(1).Info("aggregated status updated", "binding", klog.KObj(binding), "clusters", len(items))
	r.recorder.Event(binding, corev1.EventTypeNormal, EventReasonAggregateStatusSucceed, "Update ResourceBinding with AggregatedStatus successfully.")
	return nil
}

// nothingToReport holds back the first write of a binding until one of
// its Works has reported (applied, or failed with a message): a freshly
// scheduled binding would otherwise get an uninformative
// FullyApplied=False right before its Works report.
func nothingToReport(status *workv1alpha2.ResourceBindingStatus, items []workv1alpha2.AggregatedStatusItem) bool {
	if len(status.AggregatedStatus) > 0 || meta.FindStatusCondition(status.Conditions, workv1alpha2.FullyApplied) != nil {
		return false
	}
	for _, item := range items {
		if item.Applied || item.AppliedMessage != "" {
			return false
		}
	}
	return true
}

// syncTemplate aggregates items into the template's status.
func (r *Reconciler) syncTemplate(ctx context.Context, resource workv1alpha2.ObjectReference, items []workv1alpha2.AggregatedStatusItem) error {
	result, err := r.templates.Sync(ctx, resource, items)
	ref := templateRef(resource)
	if err != nil {
		err = boundedtext.Error(err)
		r.recorder.Event(ref, corev1.EventTypeWarning, EventReasonAggregateStatusFailed, err.Error())
		return err
	}
	if result == templatestatus.Updated {
		log.FromContext(ctx).V(1).Info("template status updated", "template", klog.KRef(resource.Namespace, resource.Name), "kind", resource.Kind)
		r.recorder.Event(ref, corev1.EventTypeNormal, EventReasonAggregateStatusSucceed, "Update resourceTemplate with AggregatedStatus successfully.")
	}
	return nil
}

func templateRef(resource workv1alpha2.ObjectReference) *corev1.ObjectReference {
	gv, _ := schema.ParseGroupVersion(resource.APIVersion)
	return &corev1.ObjectReference{APIVersion: gv.String(), Kind: resource.Kind, Namespace: resource.Namespace,
		Name: resource.Name, UID: resource.UID}
}
