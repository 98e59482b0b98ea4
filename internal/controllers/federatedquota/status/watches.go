package status

import (
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/propel-mc/propel/internal/shared/eventfilter"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// quotaWorkStatusChanged passes the status changes and deletions of Works.
func quotaWorkStatusChanged() predicate.Funcs {
	return eventfilter.UpdatesOf(func(o, n *workv1alpha1.Work) bool {
		return !apiequality.Semantic.DeepEqual(o.Status, n.Status)
	}, eventfilter.Deletes)
}
