package rebalancer

import (
	"context"
	"fmt"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	appsv1alpha1 "github.com/propel-mc/propel/pkg/apis/apps/v1alpha1"
	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/pkg/templatebinding"
)

// RBAC: WorkloadRebalancers: status written, deleted after their TTL; the
// bindings they name get rescheduleTriggeredAt (patch).
// +kubebuilder:rbac:groups=apps.karmada.io,resources=workloadrebalancers,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=apps.karmada.io,resources=workloadrebalancers/status,verbs=patch
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings;clusterresourcebindings,verbs=get;list;watch;patch

// Reconciler is the workload-rebalancer controller.
type Reconciler struct {
	client client.Client
	// now is the clock (tests replace it).
	now func() time.Time
}

// New returns the controller; SetupWithManager wires it.
func New() *Reconciler { return &Reconciler{now: time.Now} }

// SetupWithManager registers the controller with mgr: it handles
// creations and spec (generation) changes of WorkloadRebalancers; status
// updates and deletions are ignored, as in Karmada.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	r.client = mgr.GetClient()
	return builder.ControllerManagedBy(mgr).Named(names.WorkloadRebalancerControllerName).
		For(&appsv1alpha1.WorkloadRebalancer{}, builder.WithPredicates(predicate.Funcs{
			UpdateFunc:  func(e event.UpdateEvent) bool { return e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() },
			DeleteFunc:  func(event.DeleteEvent) bool { return false },
			GenericFunc: func(event.GenericEvent) bool { return false },
		})).
		Complete(r)
}

// Reconcile triggers the reschedules still pending, records the results
// and deletes the rebalancer once its TTL after finishing has passed.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	logger := log.FromContext(ctx).WithValues("workloadrebalancer", klog.KRef("", req.Name))
	ctx = log.IntoContext(ctx, logger)
	wr := &appsv1alpha1.WorkloadRebalancer{}
	if err := r.client.Get(ctx, req.NamespacedName, wr); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if wr.DeletionTimestamp != nil {
		return reconcile.Result{}, nil
	}
	pending, err := r.syncStatus(ctx, wr)
	if err != nil {
		return reconcile.Result{}, err
	}
	if pending > 0 {
		return reconcile.Result{}, fmt.Errorf("workloadrebalancer %s: %d workload(s) to retry", wr.Name, pending)
	}
	return r.expire(ctx, wr)
}

// syncStatus is the trigger and status phase: it rebalances every
// workload without a result and patches the status when it changed. It
// returns how many workloads failed with an error worth retrying.
func (r *Reconciler) syncStatus(ctx context.Context, wr *appsv1alpha1.WorkloadRebalancer) (int, error) {
	status := wr.Status.DeepCopy()
	status.ObservedWorkloads = observedWorkloads(wr.Spec.Workloads, wr.Status.ObservedWorkloads)
	status.ObservedGeneration = wr.Generation
	pending := 0
	for i := range status.ObservedWorkloads {
		o := &status.ObservedWorkloads[i]
		if o.Result != "" {
			continue
		}
		switch err := r.triggerReschedule(ctx, o.Workload, wr.CreationTimestamp); {
		case err == nil:
			o.Result = appsv1alpha1.RebalanceSuccessful
		case apierrors.IsNotFound(err):
			o.Result, o.Reason = appsv1alpha1.RebalanceFailed, appsv1alpha1.RebalanceObjectNotFound
		default:
			log.FromContext(ctx).Error(err, "failed to trigger reschedule", "workload", workloadRef(o.Workload))
			pending++
		}
	}
	previous := wr.Status.DeepCopy()
	previous.FinishTime, status.FinishTime = nil, nil
	if apiequality.Semantic.DeepEqual(previous, status) {
		return pending, nil
	}
	if pending == 0 {
		status.FinishTime = &metav1.Time{Time: r.now()}
	}
	patch := client.MergeFrom(wr.DeepCopy())
	wr.Status = *status
	if err := r.client.Status().Patch(ctx, wr, patch); err != nil {
		return pending, fmt.Errorf("patch status of workloadrebalancer %s: %w", wr.Name, err)
	}
	return pending, nil
}

// triggerReschedule moves the workload's binding rescheduleTriggeredAt
// forward to at. The binding is found by Karmada's name rule (the
// apiVersion plays no part); a namespaced workload has a ResourceBinding,
// a cluster-scoped one a ClusterResourceBinding.
func (r *Reconciler) triggerReschedule(ctx context.Context, w appsv1alpha1.ObjectReference, at metav1.Time) error {
	b, err := templatebinding.Get(ctx, r.client, w.Namespace, w.Kind, w.Name)
	if err != nil {
		return err
	}
	spec := b.BindingSpec()
	if spec.RescheduleTriggeredAt != nil && !spec.RescheduleTriggeredAt.Before(&at) {
		return nil
	}
	patch := client.MergeFromWithOptions(b.DeepCopyObject().(client.Object), client.MergeFromWithOptimisticLock{})
	spec.RescheduleTriggeredAt = &at
	if err := r.client.Patch(ctx, b, patch); err != nil {
		return fmt.Errorf("set rescheduleTriggeredAt of %s %s: %w", b.BindingKind(), klog.KObj(b), err)
	}
	log.FromContext(ctx).V(2).Info("triggered reschedule", "binding", klog.KObj(b), "rescheduleTriggeredAt", at)
	return nil
}

// expire is the TTL phase: it requeues until finishTime+ttl, then deletes
// the rebalancer, guarded by its resourceVersion so a spec change made
// meanwhile keeps it.
func (r *Reconciler) expire(ctx context.Context, wr *appsv1alpha1.WorkloadRebalancer) (reconcile.Result, error) {
	ttl := wr.Spec.TTLSecondsAfterFinished
	if ttl == nil || wr.Status.FinishTime == nil {
		return reconcile.Result{}, nil
	}
	if left := wr.Status.FinishTime.Add(time.Duration(*ttl) * time.Second).Sub(r.now()); left > 0 {
		return reconcile.Result{RequeueAfter: left}, nil
	}
	rv := wr.ResourceVersion
	err := r.client.Delete(ctx, wr, client.Preconditions{ResourceVersion: &rv})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		// Gone already, or changed since read: the change's event brings
		// it back if it is still to be deleted.
		return reconcile.Result{}, nil
	}
	if err != nil {
		return reconcile.Result{}, fmt.Errorf("delete finished workloadrebalancer %s: %w", wr.Name, err)
	}
	log.FromContext(ctx).V(2).Info("deleted finished workloadrebalancer")
	return reconcile.Result{}, nil
}

func workloadRef(w appsv1alpha1.ObjectReference) string {
	return w.APIVersion + "/" + w.Kind + " " + klog.KRef(w.Namespace, w.Name).String()
}
