package rebalancer

import (
	"context"
	"fmt"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/shared/templatebinding"
	appsv1alpha1 "github.com/propel-mc/propel/pkg/apis/apps/v1alpha1"
)

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

func workloadRef(w appsv1alpha1.ObjectReference) string {
	return w.APIVersion + "/" + w.Kind + " " + klog.KRef(w.Namespace, w.Name).String()
}
