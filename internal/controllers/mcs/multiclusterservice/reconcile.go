package multiclusterservice

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/controllers/mcs/clusterset"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/names"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
)

// Reconcile runs the phases: withdraw (deleted, or no longer
// CrossCluster), own (finalizer and permanent id), marker Works, claim,
// binding; then records ServiceApplied.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	mcs := &networkingv1alpha1.MultiClusterService{}
	if err := r.client.Get(ctx, req.NamespacedName, mcs); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !mcs.DeletionTimestamp.IsZero() || !clusterset.HasCrossCluster(mcs) {
		err := r.withdraw(ctx, mcs)
		if err != nil {
			r.recorder.Event(mcs, corev1.EventTypeWarning, EventReasonSyncServiceFailed, boundedtext.Error(err).Error())
		}
		return reconcile.Result{}, err
	}
	err := r.sync(ctx, mcs)
	if statusErr := Record(ctx, r.client, r.recorder, mcs, serviceApplied, err); statusErr != nil && err == nil {
		err = statusErr
	}
	return reconcile.Result{}, boundedtext.Error(err)
}

func (r *Reconciler) sync(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService) error {
	if err := r.own(ctx, mcs); err != nil {
		return err
	}
	providers, err := clusterset.Names(ctx, r.client, mcs.Spec.ProviderClusters)
	if err != nil {
		return err
	}
	if err := r.writeMarkerWorks(ctx, mcs, providers); err != nil {
		return err
	}
	svc := &corev1.Service{}
	if err := r.client.Get(ctx, client.ObjectKeyFromObject(mcs), svc); err != nil {
		return fmt.Errorf("get service %s/%s: %w", mcs.Namespace, mcs.Name, err)
	}
	if err := r.claim(ctx, mcs, svc); err != nil {
		return err
	}
	consumers, err := clusterset.Names(ctx, r.client, mcs.Spec.ConsumerClusters)
	if err != nil {
		return err
	}
	return r.bind(ctx, mcs, svc, union(providers, consumers))
}

// own adds the finalizer and, since Propel has no mutating webhook, the
// permanent id Karmada's webhook would have set.
func (r *Reconciler) own(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService) error {
	if controllerutil.ContainsFinalizer(mcs, names.MultiClusterServiceControllerFinalizer) && mcs.Labels[names.MultiClusterServicePermanentIDLabel] != "" {
		return nil
	}
	patched := mcs.DeepCopy()
	controllerutil.AddFinalizer(patched, names.MultiClusterServiceControllerFinalizer)
	if patched.Labels[names.MultiClusterServicePermanentIDLabel] == "" {
		if patched.Labels == nil {
			patched.Labels = map[string]string{}
		}
		patched.Labels[names.MultiClusterServicePermanentIDLabel] = uuid.NewString()
	}
	if err := r.client.Patch(ctx, patched, client.MergeFromWithOptions(mcs, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("add finalizer and permanent id: %w", err)
	}
	*mcs = *patched
	return nil
}
