package remedy

import (
	"context"
	"slices"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/eventfilter"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	remedyv1alpha1 "github.com/propel-mc/propel/pkg/apis/remedy/v1alpha1"
)

// clusterChanges passes Cluster updates that change the conditions or the
// remedy actions; creations and deletions are left to the Remedy events,
// as in Karmada.
func clusterChanges() predicate.Funcs {
	return eventfilter.UpdatesOf(func(o, n *clusterv1alpha1.Cluster) bool {
		return !apiequality.Semantic.DeepEqual(o.Status.Conditions, n.Status.Conditions) ||
			!slices.Equal(o.Status.RemedyActions, n.Status.RemedyActions)
	})
}

// remedyClusters maps a Remedy event to the clusters it names, or to every
// cluster when its clusterAffinity is unset (on either side of an update).
func (r *Reconciler) remedyClusters() handler.EventHandler {
	enqueue := func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request], objs ...client.Object) {
		var clusters []string
		for _, obj := range objs {
			rm, ok := obj.(*remedyv1alpha1.Remedy)
			if !ok {
				continue
			}
			if rm.Spec.ClusterAffinity == nil {
				all, err := r.allClusters(ctx)
				if err != nil {
					log.FromContext(ctx).Error(err, "failed to list clusters for remedy", "remedy", klog.KObj(rm))
					return
				}
				clusters = all
				break
			}
			clusters = append(clusters, rm.Spec.ClusterAffinity.ClusterNames...)
		}
		for _, name := range clusters {
			q.Add(reconcile.Request{NamespacedName: client.ObjectKey{Name: name}})
		}
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, q, e.Object)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, q, e.ObjectOld, e.ObjectNew)
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, q, e.Object)
		},
	}
}

func (r *Reconciler) allClusters(ctx context.Context) ([]string, error) {
	var list clusterv1alpha1.ClusterList
	if err := r.client.List(ctx, &list); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, list.Items[i].Name)
	}
	return out, nil
}
