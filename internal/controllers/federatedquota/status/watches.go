package status

import (
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

func quotaWorkStatusChanged() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*workv1alpha1.Work)
			n, ok2 := e.ObjectNew.(*workv1alpha1.Work)
			return ok1 && ok2 && !apiequality.Semantic.DeepEqual(o.Status, n.Status)
		},
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
