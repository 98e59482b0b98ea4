package endpointslicecollect

import (
	"github.com/propel-mc/propel/internal/controllers/mcs/collectedwork"
	"github.com/propel-mc/propel/internal/shared/names"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

func isMarker(w *workv1alpha1.Work) bool {
	return w.Labels[names.MultiClusterServicePermanentIDLabel] != "" && collectedwork.Holds(w, networkingv1alpha1.GroupVersion.Group, "MultiClusterService")
}
