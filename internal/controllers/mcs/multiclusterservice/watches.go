package multiclusterservice

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/controllers/mcs/clusterset"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
)

func crossClusterChanges() predicate.Funcs {
	cross := func(obj client.Object) bool {
		mcs, ok := obj.(*networkingv1alpha1.MultiClusterService)
		return ok && clusterset.HasCrossCluster(mcs)
	}
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return cross(e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*networkingv1alpha1.MultiClusterService)
			n, ok2 := e.ObjectNew.(*networkingv1alpha1.MultiClusterService)
			if !ok1 || !ok2 || (!cross(o) && !cross(n)) {
				return false
			}
			return !apiequality.Semantic.DeepEqual(o.Annotations, n.Annotations) || !apiequality.Semantic.DeepEqual(o.Spec, n.Spec) ||
				o.DeletionTimestamp.IsZero() != n.DeletionTimestamp.IsZero() ||
				!apiequality.Semantic.DeepEqual(o.Labels, n.Labels) || !apiequality.Semantic.DeepEqual(o.Finalizers, n.Finalizers)
		},
		DeleteFunc: func(event.DeleteEvent) bool { return false },
	}
}

func serviceChanges() predicate.Funcs {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*corev1.Service)
		n, ok2 := e.ObjectNew.(*corev1.Service)
		return !ok1 || !ok2 || !apiequality.Semantic.DeepEqual(o.Labels, n.Labels) ||
			!apiequality.Semantic.DeepEqual(o.Annotations, n.Annotations) || !apiequality.Semantic.DeepEqual(o.Spec, n.Spec)
	}}
}

func (r *Reconciler) mcsOfService(ctx context.Context, svc client.Object) []reconcile.Request {
	mcs := &networkingv1alpha1.MultiClusterService{}
	if err := r.client.Get(ctx, client.ObjectKeyFromObject(svc), mcs); err != nil || !clusterset.HasCrossCluster(mcs) {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKeyFromObject(mcs)}}
}

func (r *Reconciler) mcsSelecting(ctx context.Context, cluster client.Object) []reconcile.Request {
	var out []reconcile.Request
	for _, mcs := range ForClusterEvent(ctx, r.client, cluster.GetName(), func(mcs *networkingv1alpha1.MultiClusterService) bool {
		return clusterset.HasCrossCluster(mcs) && (clusterset.Selects(mcs.Spec.ProviderClusters, cluster.GetName()) || clusterset.Selects(mcs.Spec.ConsumerClusters, cluster.GetName()))
	}) {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(mcs)})
	}
	return out
}

// ForClusterEvent returns the MCSs that concern cluster, by concerns. A
// failed list is logged and gives none: the event handlers that ask have
// no error to return.
func ForClusterEvent(ctx context.Context, c client.Reader, cluster string, concerns func(*networkingv1alpha1.MultiClusterService) bool) []*networkingv1alpha1.MultiClusterService {
	list := &networkingv1alpha1.MultiClusterServiceList{}
	if err := c.List(ctx, list); err != nil {
		log.FromContext(ctx).Error(err, "list multiclusterservices for a cluster event", "cluster", cluster)
		return nil
	}
	var out []*networkingv1alpha1.MultiClusterService
	for i := range list.Items {
		if concerns(&list.Items[i]) {
			out = append(out, &list.Items[i])
		}
	}
	return out
}
