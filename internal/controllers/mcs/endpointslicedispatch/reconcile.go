package endpointslicedispatch

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/controllers/mcs/collectedwork"
	"github.com/propel-mc/propel/internal/controllers/mcs/multiclusterservice"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// Reconcile dispatches one provider slice Work, or withdraws its copies.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	work := &workv1alpha1.Work{}
	if err := r.client.Get(ctx, req.NamespacedName, work); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if dispatched(work) || !collectedwork.HoldsEndpointSlice(work) {
		return reconcile.Result{}, nil
	}
	provider, err := names.ClusterOfExecutionSpace(work.Namespace)
	if err != nil {
		return reconcile.Result{}, nil
	}
	if !work.DeletionTimestamp.IsZero() || work.Labels[names.MultiClusterServiceNameLabel] == "" {
		if err := r.removeCopies(ctx, work.Name, provider, nil); err != nil {
			return reconcile.Result{}, err
		}
		return reconcile.Result{}, collectedwork.RemoveFinalizer(ctx, r.client, work, collectedwork.MultiClusterService)
	}
	mcs := &networkingv1alpha1.MultiClusterService{}
	key := client.ObjectKey{Namespace: work.Labels[names.MultiClusterServiceNamespaceLabel], Name: work.Labels[names.MultiClusterServiceNameLabel]}
	if err := r.client.Get(ctx, key, mcs); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	err = r.dispatch(ctx, mcs, work, provider)
	return reconcile.Result{}, boundedtext.Error(errors.Join(err, multiclusterservice.Record(ctx, r.client, r.recorder, mcs, dispatchedCondition, err)))
}

// removeCopies deletes the copies of the provider's Work (same name, in
// the execution namespace of each cluster), except those of the clusters
// keep names.
func (r *Reconciler) removeCopies(ctx context.Context, workName, provider string, keep map[string]bool) error {
	clusters := &clusterv1alpha1.ClusterList{}
	if err := r.client.List(ctx, clusters); err != nil {
		return fmt.Errorf("list clusters: %w", err)
	}
	var errs []error
	for _, c := range clusters.Items {
		if keep[c.Name] || c.Name == provider {
			continue
		}
		w := &workv1alpha1.Work{}
		err := r.client.Get(ctx, client.ObjectKey{Namespace: names.ExecutionSpace(c.Name), Name: workName}, w)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if w.Annotations[names.EndpointSliceProvisionClusterAnnotation] != provider || !w.DeletionTimestamp.IsZero() {
			continue
		}
		if err := r.client.Delete(ctx, w); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("delete dispatched Work %s/%s: %w", w.Namespace, w.Name, err))
		}
	}
	return errors.Join(errs...)
}
