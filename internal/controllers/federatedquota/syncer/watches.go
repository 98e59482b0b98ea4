package syncer

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
	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// assignmentsChanged passes every quota event but the updates that leave
// spec.staticAssignments as it was.
func assignmentsChanged() predicate.Funcs {
	return eventfilter.UpdatesOf(func(o, n *policyv1alpha1.FederatedResourceQuota) bool {
		return !apiequality.Semantic.DeepEqual(o.Spec.StaticAssignments, n.Spec.StaticAssignments)
	}, eventfilter.Creates, eventfilter.Deletes, eventfilter.Generics)
}

// QuotaOfWork maps a Work this controller wrote to its quota (nothing for
// other Works).
func QuotaOfWork(_ context.Context, obj client.Object) []reconcile.Request {
	ns, name := obj.GetLabels()[names.FederatedResourceQuotaNamespaceLabel], obj.GetLabels()[names.FederatedResourceQuotaNameLabel]
	if ns == "" || name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: ns, Name: name}}}
}

// quotasAssigningTo maps a new Cluster to every quota with an assignment
// for it.
func (r *Reconciler) quotasAssigningTo() handler.EventHandler {
	return handler.Funcs{CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		var quotas policyv1alpha1.FederatedResourceQuotaList
		if err := r.client.List(ctx, &quotas); err != nil {
			log.FromContext(ctx).Error(err, "list federated resource quotas for a new cluster", "cluster", klog.KObj(e.Object))
			return
		}
		for _, frq := range quotas.Items {
			if slices.ContainsFunc(frq.Spec.StaticAssignments, func(a policyv1alpha1.StaticClusterAssignment) bool { return a.ClusterName == e.Object.GetName() }) {
				q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&frq)})
			}
		}
	}}
}
