package bindingstatus

import (
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// bindingKind is what differs between the ResourceBinding and the
// ClusterResourceBinding status controllers; the bindings themselves are
// handled through workv1alpha2.Binding.
type bindingKind struct {
	controllerName string
	newBinding     func() workv1alpha2.Binding
	// bindingOf names the binding a Work belongs to, from its annotations.
	bindingOf func(work client.Object) (types.NamespacedName, bool)
}

var resourceBindingKind = bindingKind{
	controllerName: names.ResourceBindingStatusControllerName,
	newBinding:     func() workv1alpha2.Binding { return &workv1alpha2.ResourceBinding{} },
	bindingOf: func(work client.Object) (types.NamespacedName, bool) {
		return workv1alpha2.BindingOfWork(work.GetAnnotations(), true)
	},
}

var clusterResourceBindingKind = bindingKind{
	controllerName: names.ClusterResourceBindingStatusControllerName,
	newBinding:     func() workv1alpha2.Binding { return &workv1alpha2.ClusterResourceBinding{} },
	bindingOf: func(work client.Object) (types.NamespacedName, bool) {
		return workv1alpha2.BindingOfWork(work.GetAnnotations(), false)
	},
}

// statusOf is the status of a binding event's object (always a binding:
// the controller watches only its kind).
func statusOf(obj client.Object) *workv1alpha2.ResourceBindingStatus {
	b, _ := workv1alpha2.AsBinding(obj)
	return b.BindingStatus()
}
