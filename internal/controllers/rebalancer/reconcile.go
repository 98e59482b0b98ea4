package rebalancer

import (
	"context"
	"fmt"

	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/liveobject"
	appsv1alpha1 "github.com/propel-mc/propel/pkg/apis/apps/v1alpha1"
)

// Reconcile triggers the reschedules still pending, records the results
// and deletes the rebalancer once its TTL after finishing has passed.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	logger := log.FromContext(ctx).WithValues("workloadrebalancer", klog.KRef("", req.Name))
	ctx = log.IntoContext(ctx, logger)
	wr := &appsv1alpha1.WorkloadRebalancer{}
	if live, err := liveobject.Get(ctx, r.client, req.NamespacedName, wr); !live {
		return reconcile.Result{}, err
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
