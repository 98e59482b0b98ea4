package multiclusterservice

import (
	"context"
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/propel-mc/propel/internal/shared/names"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
)

// withdraw un-claims the Service, withdraws the collected Works and
// removes the marker Works, then releases the MCS.
func (r *Reconciler) withdraw(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService) error {
	if err := r.unclaim(ctx, mcs); err != nil {
		return err
	}
	works, err := r.markerWorks(ctx, mcs)
	if err != nil {
		return err
	}
	var errs []error
	for i := range works {
		errs = append(errs, r.removeMarkerWork(ctx, mcs, &works[i]))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if !controllerutil.ContainsFinalizer(mcs, names.MultiClusterServiceControllerFinalizer) {
		return nil
	}
	patched := mcs.DeepCopy()
	controllerutil.RemoveFinalizer(patched, names.MultiClusterServiceControllerFinalizer)
	if err := r.client.Patch(ctx, patched, client.MergeFromWithOptions(mcs, client.MergeFromWithOptimisticLock{})); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("remove finalizer: %w", err))
	}
	return nil
}
