// Package workcluster resolves the member cluster of a Work (from its
// execution namespace, karmada-es-<cluster>) and provides what the execution
// and work-status controllers share about it: the Push-mode filter for Work
// events, the Ready test, and the mapping from a Cluster that becomes Ready
// to the Works waiting for it.
package workcluster

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// RBAC: Work controllers watch Works and their target Clusters.
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch

// Get returns the Cluster whose execution namespace is namespace.
func Get(ctx context.Context, reader client.Reader, namespace string) (*clusterv1alpha1.Cluster, error) {
	name, err := names.ClusterOfExecutionSpace(namespace)
	if err != nil {
		return nil, err
	}
	cluster := &clusterv1alpha1.Cluster{}
	if err := reader.Get(ctx, types.NamespacedName{Name: name}, cluster); err != nil {
		return nil, fmt.Errorf("get cluster %s: %w", name, err)
	}
	return cluster, nil
}

// IsReady reports whether the Cluster's Ready condition is True.
func IsReady(cluster *clusterv1alpha1.Cluster) bool {
	return meta.IsStatusConditionTrue(cluster.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
}

// IsPush reports whether the control plane applies the cluster's Works.
func IsPush(cluster *clusterv1alpha1.Cluster) bool {
	return cluster.Spec.SyncMode == clusterv1alpha1.Push
}

// PushPredicate passes events of Works whose cluster is in Push mode. A
// Work whose Cluster is not found passes, so that its reconciler can
// release it; Pull-mode Works belong to karmada-agent.
func PushPredicate(reader client.Reader) predicate.Predicate {
	inPush := func(obj client.Object) bool {
		cluster, err := Get(context.Background(), reader, obj.GetNamespace())
		if err != nil {
			return apierrors.IsNotFound(err)
		}
		return IsPush(cluster)
	}
	return predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return inPush(e.Object) },
		UpdateFunc:  func(e event.UpdateEvent) bool { return inPush(e.ObjectNew) },
		DeleteFunc:  func(e event.DeleteEvent) bool { return inPush(e.Object) },
		GenericFunc: func(e event.GenericEvent) bool { return inPush(e.Object) },
	}
}

// EnqueueWorksOnReadiness maps a Cluster whose Ready condition or sync mode
// changed (or that appeared) to every Work of its execution namespace, so
// Works that waited for the cluster are retried at once rather than after
// their backoff.
func EnqueueWorksOnReadiness(reader client.Reader) handler.EventHandler {
	mapFn := handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, obj client.Object) []reconcile.Request {
		return worksOf(ctx, reader, obj.GetName())
	})
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			mapFn.Create(ctx, e, q)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			oldC, okOld := e.ObjectOld.(*clusterv1alpha1.Cluster)
			newC, okNew := e.ObjectNew.(*clusterv1alpha1.Cluster)
			if okOld && okNew && IsReady(oldC) == IsReady(newC) && oldC.Spec.SyncMode == newC.Spec.SyncMode {
				return
			}
			mapFn.Update(ctx, e, q)
		},
	}
}

func worksOf(ctx context.Context, reader client.Reader, cluster string) []reconcile.Request {
	works := &workv1alpha1.WorkList{}
	if err := reader.List(ctx, works, client.InNamespace(names.ExecutionSpace(cluster))); err != nil {
		log.FromContext(ctx).Error(err, "list works of cluster", "cluster", cluster)
		return nil
	}
	out := make([]reconcile.Request, 0, len(works.Items))
	for i := range works.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&works.Items[i])})
	}
	return out
}

// NewControllerFor starts the builder of a controller over the Works of
// Push clusters, as execution and work-status both are: Works that pass
// pred, the Works of a Cluster that turns Ready, and the member-object
// events of src. The caller completes it with its reconciler.
func NewControllerFor(mgr ctrl.Manager, name string, pred predicate.Predicate, src source.Source, opts controller.Options) *builder.Builder {
	return ctrl.NewControllerManagedBy(mgr).Named(name).
		For(&workv1alpha1.Work{}, builder.WithPredicates(pred, PushPredicate(mgr.GetClient()))).
		Watches(&clusterv1alpha1.Cluster{}, EnqueueWorksOnReadiness(mgr.GetClient())).
		WatchesRawSource(src).
		WithOptions(opts)
}
