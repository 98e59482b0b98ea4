package endpointslicedispatch

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/controllers/mcs/clusterset"
	"github.com/propel-mc/propel/internal/controllers/mcs/collectedwork"
	"github.com/propel-mc/propel/internal/controllers/mcs/multiclusterservice"
	"github.com/propel-mc/propel/internal/shared/names"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

func dispatched(obj client.Object) bool {
	_, ok := obj.GetAnnotations()[names.EndpointSliceProvisionClusterAnnotation]
	return ok
}

func providerSliceWorks() predicate.Funcs {
	ofMCS := func(obj client.Object) bool {
		return obj.GetLabels()[names.MultiClusterServiceNameLabel] != "" && !dispatched(obj)
	}
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return ofMCS(e.Object) },
		DeleteFunc: func(e event.DeleteEvent) bool { return ofMCS(e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return !dispatched(e.ObjectNew) &&
				(e.ObjectNew.GetLabels()[names.MultiClusterServiceNameLabel] != "" || e.ObjectNew.GetLabels()[names.EndpointSliceNameLabel] != "")
		},
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// providerWorks lists the provider slice Works of the MCS namespace/name.
func (r *Reconciler) providerWorks(ctx context.Context, namespace, name string) []reconcile.Request {
	list := &workv1alpha1.WorkList{}
	if err := r.client.List(ctx, list, client.MatchingLabels{names.MultiClusterServiceNamespaceLabel: namespace, names.MultiClusterServiceNameLabel: name}); err != nil {
		log.FromContext(ctx).Error(err, "list the provider endpointslice works of a multiclusterservice", "namespace", namespace, "name", name)
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		w := &list.Items[i]
		if !dispatched(w) && collectedwork.HoldsEndpointSlice(w) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(w)})
		}
	}
	return out
}

func (r *Reconciler) worksOfMCS(ctx context.Context, mcs client.Object) []reconcile.Request {
	return r.providerWorks(ctx, mcs.GetNamespace(), mcs.GetName())
}

func (r *Reconciler) worksOfConsumer(ctx context.Context, cluster client.Object) []reconcile.Request {
	var out []reconcile.Request
	for _, mcs := range multiclusterservice.ForClusterEvent(ctx, r.client, cluster.GetName(), func(mcs *networkingv1alpha1.MultiClusterService) bool {
		return clusterset.Selects(mcs.Spec.ConsumerClusters, cluster.GetName())
	}) {
		out = append(out, r.providerWorks(ctx, mcs.Namespace, mcs.Name)...)
	}
	return out
}
