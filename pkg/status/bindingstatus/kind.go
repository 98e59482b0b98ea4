package bindingstatus

import (
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/pkg/names"
)

// bindingKind is what differs between ResourceBindings and
// ClusterResourceBindings for status aggregation.
type bindingKind struct {
	controllerName string
	// idLabel is the binding's permanent-id label, which its Works carry.
	idLabel string
	// index lists Works by idLabel's value.
	index      string
	newBinding func() client.Object
	parts      func(obj client.Object) (*workv1alpha2.ResourceBindingSpec, *workv1alpha2.ResourceBindingStatus)
	// bindingOf names the binding a Work belongs to, from its annotations.
	bindingOf func(work client.Object) (types.NamespacedName, bool)
}

var resourceBindingKind = bindingKind{
	controllerName: names.ResourceBindingStatusControllerName,
	idLabel:        names.ResourceBindingPermanentIDLabel,
	index:          IndexWorksByResourceBindingID,
	newBinding:     func() client.Object { return &workv1alpha2.ResourceBinding{} },
	parts: func(obj client.Object) (*workv1alpha2.ResourceBindingSpec, *workv1alpha2.ResourceBindingStatus) {
		rb := obj.(*workv1alpha2.ResourceBinding)
		return &rb.Spec, &rb.Status
	},
	bindingOf: func(work client.Object) (types.NamespacedName, bool) {
		a := work.GetAnnotations()
		key := types.NamespacedName{Namespace: a[names.ResourceBindingNamespaceAnnotation], Name: a[names.ResourceBindingNameAnnotation]}
		return key, key.Namespace != "" && key.Name != ""
	},
}

var clusterResourceBindingKind = bindingKind{
	controllerName: names.ClusterResourceBindingStatusControllerName,
	idLabel:        names.ClusterResourceBindingPermanentIDLabel,
	index:          IndexWorksByClusterResourceBindingID,
	newBinding:     func() client.Object { return &workv1alpha2.ClusterResourceBinding{} },
	parts: func(obj client.Object) (*workv1alpha2.ResourceBindingSpec, *workv1alpha2.ResourceBindingStatus) {
		crb := obj.(*workv1alpha2.ClusterResourceBinding)
		return &crb.Spec, &crb.Status
	},
	bindingOf: func(work client.Object) (types.NamespacedName, bool) {
		key := types.NamespacedName{Name: work.GetAnnotations()[names.ClusterResourceBindingNameAnnotation]}
		return key, key.Name != ""
	},
}
