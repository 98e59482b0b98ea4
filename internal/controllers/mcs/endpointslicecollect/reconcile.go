package endpointslicecollect

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/controllers/mcs/collectedwork"
	"github.com/propel-mc/propel/internal/controllers/mcs/memberwatch"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// reconcileMarker watches the provider's slices and hands those of the
// MCS's Service to the member-objects controller. It does not report them
// itself: the two controllers run side by side, and a report from a slice
// listed here could land after one of a newer version of that slice made
// by the other, leaving the collected Work behind with no event to mend
// it. Through one queue a slice's reports are serial, and each reads the
// slice when it runs.
func (r *Reconciler) reconcileMarker(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	work := &workv1alpha1.Work{}
	if err := r.Client.Get(ctx, req.NamespacedName, work); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !work.DeletionTimestamp.IsZero() || !isMarker(work) {
		return reconcile.Result{}, nil
	}
	caches, err := r.WorkCaches(ctx, work, memberwatch.EndpointSlices)
	if err != nil || caches == nil {
		return reconcile.Result{}, boundedtext.Error(err)
	}
	ns, service := work.Labels[names.MultiClusterServiceNamespaceLabel], work.Labels[names.MultiClusterServiceNameLabel]
	slices, err := caches.List(memberwatch.EndpointSlices, ns, labels.SelectorFromSet(labels.Set{names.KubeServiceNameLabel: service}))
	if err != nil {
		return reconcile.Result{}, err
	}
	for _, s := range slices {
		if collectedwork.IsKarmadaManaged(s) {
			continue
		}
		key := memberwatch.Key{Cluster: caches.Cluster, Kind: memberwatch.KindEndpointSlice, Namespace: s.GetNamespace(), Name: s.GetName()}
		if !r.Watcher.Enqueue(key) {
			return reconcile.Result{RequeueAfter: time.Second}, nil // the member-objects controller has not started
		}
	}
	return reconcile.Result{}, nil
}

// reconcileKey reports a slice of a collected Service, or withdraws the
// Work of a slice that is gone.
func (r *Reconciler) reconcileKey(ctx context.Context, key memberwatch.Key) (reconcile.Result, error) {
	caches, err := r.Watcher.ClusterCaches(ctx, r.Client, key.Cluster, memberwatch.EndpointSlices)
	if err != nil || caches == nil {
		return reconcile.Result{}, boundedtext.Error(err)
	}
	slice, err := caches.Get(memberwatch.EndpointSlices, key.Namespace, key.Name)
	if err != nil {
		return reconcile.Result{}, err
	}
	if slice == nil {
		work := &workv1alpha1.Work{}
		err := r.Client.Get(ctx, types.NamespacedName{Namespace: names.ExecutionSpace(key.Cluster), Name: collectedwork.WorkName(key.Namespace, key.Name)}, work)
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		if err != nil {
			return reconcile.Result{}, err
		}
		if !collectedwork.IsCollected(work, collectedwork.MultiClusterService) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, collectedwork.Clean(ctx, r.Client, work, collectedwork.MultiClusterService)
	}
	if collectedwork.IsKarmadaManaged(slice) {
		return reconcile.Result{}, nil
	}
	service := slice.GetLabels()[names.KubeServiceNameLabel]
	if service == "" {
		return reconcile.Result{}, nil
	}
	markers := &workv1alpha1.WorkList{}
	err = r.Client.List(ctx, markers, client.InNamespace(names.ExecutionSpace(key.Cluster)),
		client.MatchingLabels{names.MultiClusterServiceNamespaceLabel: key.Namespace, names.MultiClusterServiceNameLabel: service})
	if err != nil {
		return reconcile.Result{}, err
	}
	for i := range markers.Items {
		if isMarker(&markers.Items[i]) && markers.Items[i].DeletionTimestamp.IsZero() {
			return reconcile.Result{}, boundedtext.Error(collectedwork.Report(ctx, r.Client, r.Reader, key.Cluster, service, slice, collectedwork.MultiClusterService))
		}
	}
	return reconcile.Result{}, nil
}
