package syncer

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/workwriter"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// Reconcile writes the quota's Works, or removes them when it is gone.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	frq := &policyv1alpha1.FederatedResourceQuota{}
	if err := r.client.Get(ctx, req.NamespacedName, frq); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, r.removeWorks(ctx, req.Namespace, req.Name, nil)
		}
		return reconcile.Result{}, err
	}
	err := r.sync(ctx, frq)
	syncWorks.Record(r.recorder, frq, err)
	return reconcile.Result{}, err
}

// sync removes the Works of clusters no longer assigned, then writes one
// Work per registered assigned cluster (unregistered ones are skipped
// until their Cluster is created).
func (r *Reconciler) sync(ctx context.Context, frq *policyv1alpha1.FederatedResourceQuota) error {
	assigned := make([]string, 0, len(frq.Spec.StaticAssignments))
	for _, a := range frq.Spec.StaticAssignments {
		assigned = append(assigned, names.ExecutionSpace(a.ClusterName))
	}
	if err := r.removeWorks(ctx, frq.Namespace, frq.Name, assigned); err != nil {
		return err
	}
	var errs []error
	for _, a := range frq.Spec.StaticAssignments {
		err := r.client.Get(ctx, client.ObjectKey{Name: a.ClusterName}, &clusterv1alpha1.Cluster{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("get cluster %s: %w", a.ClusterName, err))
			continue
		}
		d, err := desiredWork(frq, a)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, err := workwriter.WriteFromCache(ctx, r.client, r.reader, d); err != nil {
			errs = append(errs, fmt.Errorf("write Work %s for cluster %s: %w", d.Key(), a.ClusterName, err))
		}
	}
	return kerrors.NewAggregate(errs)
}
