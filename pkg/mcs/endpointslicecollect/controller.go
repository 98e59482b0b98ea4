// Package endpointslicecollect is Karmada's
// endpointslice-collect-controller ("endpointsliceCollect", behind the
// MultiClusterService gate): for each provider cluster that holds a
// MultiClusterService marker Work, it watches the member's EndpointSlices
// and reports those of the MCS's Service back as suspended Works
// (pkg/mcs/collectedwork, MultiClusterService path), withdrawing them when
// the slices go.
package endpointslicecollect

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/pkg/boundedtext"
	"github.com/propel-mc/propel/pkg/mcs/collectedwork"
	"github.com/propel-mc/propel/pkg/mcs/memberwatch"
	"github.com/propel-mc/propel/pkg/membercluster"
	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/pkg/workcluster"
)

// RBAC: marker Works name the providers whose EndpointSlices are collected.
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch

const memberObjectsControllerName = names.EndpointSliceCollectControllerName + "-member-objects"

// Reconciler starts the member watches from marker Works and reconciles
// the member slices' keys.
type Reconciler struct {
	client  client.Client
	reader  client.Reader
	watcher *memberwatch.Watcher
}

// New returns the controller; SetupWithManager wires it.
func New(clients membercluster.ClientSource, informers *membercluster.Informers, syncTimeout time.Duration) *Reconciler {
	return &Reconciler{watcher: &memberwatch.Watcher{
		Owner: names.EndpointSliceCollectControllerName, Clients: clients, Informers: informers, SyncTimeout: syncTimeout,
	}}
}

// SetupWithManager registers two controllers with mgr: one over the
// marker Works of Push clusters, one over the member slices' keys.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	r.client, r.reader = mgr.GetClient(), mgr.GetAPIReader()
	err := builder.ControllerManagedBy(mgr).Named(names.EndpointSliceCollectControllerName).
		For(&workv1alpha1.Work{}, builder.WithPredicates(markerWorks(), workcluster.PushPredicate(mgr.GetClient()))).
		Watches(&clusterv1alpha1.Cluster{}, workcluster.EnqueueWorksOnReadiness(mgr.GetClient())).
		Complete(reconcile.Func(r.reconcileMarker))
	if err != nil {
		return err
	}
	return builder.TypedControllerManagedBy[memberwatch.Key](mgr).Named(memberObjectsControllerName).
		WatchesRawSource(r.watcher.Source()).
		Complete(reconcile.TypedFunc[memberwatch.Key](r.reconcileKey))
}

func markerWorks() predicate.Funcs {
	return predicate.NewPredicateFuncs(func(obj client.Object) bool {
		w, ok := obj.(*workv1alpha1.Work)
		return ok && isMarker(w)
	})
}

func isMarker(w *workv1alpha1.Work) bool {
	return w.Labels[names.MultiClusterServicePermanentIDLabel] != "" && collectedwork.Holds(w, networkingv1alpha1.GroupVersion.Group, "MultiClusterService")
}

// reconcileMarker watches the provider's slices and hands those of the
// MCS's Service to the member-objects controller. It does not report them
// itself: the two controllers run side by side, and a report from a slice
// listed here could land after one of a newer version of that slice made
// by the other, leaving the collected Work behind with no event to mend
// it. Through one queue a slice's reports are serial, and each reads the
// slice when it runs.
func (r *Reconciler) reconcileMarker(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	work := &workv1alpha1.Work{}
	if err := r.client.Get(ctx, req.NamespacedName, work); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !work.DeletionTimestamp.IsZero() || !isMarker(work) {
		return reconcile.Result{}, nil
	}
	cluster, err := workcluster.Get(ctx, r.client, work.Namespace)
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !workcluster.IsReady(cluster) {
		return reconcile.Result{}, fmt.Errorf("work %s/%s: cluster %s is not ready", work.Namespace, work.Name, cluster.Name)
	}
	caches, err := r.watcher.Caches(ctx, cluster, memberwatch.EndpointSlices)
	if err != nil {
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
		key := memberwatch.Key{Cluster: cluster.Name, Kind: memberwatch.KindEndpointSlice, Namespace: s.GetNamespace(), Name: s.GetName()}
		if !r.watcher.Enqueue(key) {
			return reconcile.Result{RequeueAfter: time.Second}, nil // the member-objects controller has not started
		}
	}
	return reconcile.Result{}, nil
}

// reconcileKey reports a slice of a collected Service, or withdraws the
// Work of a slice that is gone.
func (r *Reconciler) reconcileKey(ctx context.Context, key memberwatch.Key) (reconcile.Result, error) {
	caches, err := r.watcher.ClusterCaches(ctx, r.client, key.Cluster, memberwatch.EndpointSlices)
	if err != nil || caches == nil {
		return reconcile.Result{}, boundedtext.Error(err)
	}
	slice, err := caches.Get(memberwatch.EndpointSlices, key.Namespace, key.Name)
	if err != nil {
		return reconcile.Result{}, err
	}
	if slice == nil {
		work := &workv1alpha1.Work{}
		err := r.client.Get(ctx, types.NamespacedName{Namespace: names.ExecutionSpace(key.Cluster), Name: collectedwork.WorkName(key.Namespace, key.Name)}, work)
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		if err != nil {
			return reconcile.Result{}, err
		}
		if !collectedwork.IsCollected(work, collectedwork.MultiClusterService) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, collectedwork.Clean(ctx, r.client, work, collectedwork.MultiClusterService)
	}
	if collectedwork.IsKarmadaManaged(slice) {
		return reconcile.Result{}, nil
	}
	service := slice.GetLabels()[names.KubeServiceNameLabel]
	if service == "" {
		return reconcile.Result{}, nil
	}
	markers := &workv1alpha1.WorkList{}
	err = r.client.List(ctx, markers, client.InNamespace(names.ExecutionSpace(key.Cluster)),
		client.MatchingLabels{names.MultiClusterServiceNamespaceLabel: key.Namespace, names.MultiClusterServiceNameLabel: service})
	if err != nil {
		return reconcile.Result{}, err
	}
	for i := range markers.Items {
		if isMarker(&markers.Items[i]) && markers.Items[i].DeletionTimestamp.IsZero() {
			return reconcile.Result{}, boundedtext.Error(collectedwork.Report(ctx, r.client, r.reader, key.Cluster, service, slice, collectedwork.MultiClusterService))
		}
	}
	return reconcile.Result{}, nil
}
