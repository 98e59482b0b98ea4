package serviceexport

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/propel-mc/propel/internal/controllers/mcs/collectedwork"
	"github.com/propel-mc/propel/internal/controllers/mcs/memberwatch"
	"github.com/propel-mc/propel/internal/shared/names"
	mcsv1alpha1 "github.com/propel-mc/propel/pkg/apis/multicluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// holdsExport passes live, dispatched Works that hold a ServiceExport.
func holdsExport(work *workv1alpha1.Work) bool {
	return !work.DispatchingSuspended() && collectedwork.Holds(work, mcsv1alpha1.GroupVersion.Group, memberwatch.KindServiceExport)
}

// exportKeysOfCollectedWorks maps a newly seen collected Work of the
// ServiceExport path to its export's key.
func exportKeysOfCollectedWorks() handler.TypedEventHandler[*workv1alpha1.Work, memberwatch.Key] {
	return handler.TypedEnqueueRequestsFromMapFunc(func(_ context.Context, work *workv1alpha1.Work) []memberwatch.Key {
		if !work.DispatchingSuspended() || !collectedwork.IsManagedBy(work, collectedwork.ServiceExport) {
			return nil
		}
		cluster, err := names.ClusterOfExecutionSpace(work.Namespace)
		ns, name := work.Labels[names.EndpointSliceNamespaceLabel], work.Labels[names.EndpointSliceNameLabel]
		if err != nil || ns == "" || name == "" {
			return nil
		}
		return []memberwatch.Key{{Cluster: cluster, Kind: memberwatch.KindServiceExport, Namespace: ns, Name: name}}
	})
}

func onlyCreate[T client.Object]() predicate.TypedPredicate[T] {
	return predicate.TypedFuncs[T]{
		UpdateFunc:  func(event.TypedUpdateEvent[T]) bool { return false },
		DeleteFunc:  func(event.TypedDeleteEvent[T]) bool { return false },
		GenericFunc: func(event.TypedGenericEvent[T]) bool { return false },
	}
}
