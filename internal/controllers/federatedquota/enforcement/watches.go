package enforcement

import (
	"context"

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
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// overallChanged passes quota creations and the updates that change
// spec.overall.
func overallChanged() predicate.Funcs {
	return eventfilter.UpdatesOf(func(o, n *policyv1alpha1.FederatedResourceQuota) bool {
		return !apiequality.Semantic.DeepEqual(o.Spec.Overall, n.Spec.Overall)
	}, eventfilter.Creates, eventfilter.Generics)
}

// quotasOfNamespace maps a deleted binding to every quota of its namespace.
func (r *Reconciler) quotasOfNamespace() handler.EventHandler {
	return handler.Funcs{DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		var quotas policyv1alpha1.FederatedResourceQuotaList
		if err := r.client.List(ctx, &quotas, client.InNamespace(e.Object.GetNamespace())); err != nil {
			log.FromContext(ctx).Error(err, "list federated resource quotas for a deleted binding", "binding", klog.KObj(e.Object))
			return
		}
		for i := range quotas.Items {
			q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&quotas.Items[i])})
		}
	}}
}
