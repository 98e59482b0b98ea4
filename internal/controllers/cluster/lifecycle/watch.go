package lifecycle

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/eventfilter"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// clusterChanges filters Cluster updates down to what the controller
// acts on: spec changes (generation), deletion, finalizers and a change of
// the Ready condition's status. Status heartbeats do not reconcile.
func clusterChanges() builder.Predicates {
	return builder.WithPredicates(eventfilter.UpdatesOf(func(o, n *clusterv1alpha1.Cluster) bool {
		return o.Generation != n.Generation ||
			!n.DeletionTimestamp.IsZero() ||
			len(o.Finalizers) != len(n.Finalizers) ||
			readyStatus(o) != readyStatus(n)
	}, eventfilter.Creates, eventfilter.Deletes, eventfilter.Generics))
}

// readyStatus is the status of the Ready condition, "" when absent.
func readyStatus(c *clusterv1alpha1.Cluster) metav1.ConditionStatus {
	cond := meta.FindStatusCondition(c.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
	if cond == nil {
		return ""
	}
	return cond.Status
}

// namespaceSource is the watched Namespace kind: deleting an execution
// space by hand makes the controller recreate it.
func namespaceSource() client.Object { return &corev1.Namespace{} }

// executionSpaceHandler maps an execution namespace to its cluster.
func executionSpaceHandler() handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(_ context.Context, obj client.Object) []reconcile.Request {
		cluster, err := names.ClusterOfExecutionSpace(obj.GetName())
		if err != nil {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: cluster}}}
	})
}

// onlyDeletes passes Namespace deletions only.
func onlyDeletes() builder.Predicates {
	return builder.WithPredicates(eventfilter.Only(eventfilter.Deletes))
}
