package serviceexport

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/controllers/mcs/memberwatch"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// reconcileWork starts watching the member's ServiceExports and
// EndpointSlices once a ServiceExport Work is applied there.
func (r *Reconciler) reconcileWork(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	work := &workv1alpha1.Work{}
	if err := r.Client.Get(ctx, req.NamespacedName, work); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !work.DeletionTimestamp.IsZero() || !meta.IsStatusConditionTrue(work.Status.Conditions, workv1alpha1.WorkApplied) {
		return reconcile.Result{}, nil
	}
	_, err := r.WorkCaches(ctx, work, memberwatch.ServiceExports, memberwatch.EndpointSlices)
	return reconcile.Result{}, boundedtext.Error(err)
}

// reconcileKey reports or withdraws the slices a member object event
// concerns.
func (r *Reconciler) reconcileKey(ctx context.Context, key memberwatch.Key) (reconcile.Result, error) {
	caches, err := r.Watcher.ClusterCaches(ctx, r.Client, key.Cluster, memberwatch.ServiceExports, memberwatch.EndpointSlices)
	if err != nil || caches == nil {
		return reconcile.Result{}, boundedtext.Error(err)
	}
	switch key.Kind {
	case memberwatch.KindServiceExport:
		err = r.syncExport(ctx, caches, key)
	case memberwatch.KindEndpointSlice:
		err = r.syncSlice(ctx, caches, key)
	}
	return reconcile.Result{}, boundedtext.Error(err)
}
