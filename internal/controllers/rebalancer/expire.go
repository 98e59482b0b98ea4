package rebalancer

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	appsv1alpha1 "github.com/propel-mc/propel/pkg/apis/apps/v1alpha1"
)

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
