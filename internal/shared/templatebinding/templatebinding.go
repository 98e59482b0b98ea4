// Package templatebinding owns what makes a ResourceBinding or
// ClusterResourceBinding the binding of a resource template, for every
// controller that creates bindings (the detector, the dependencies
// distributor, the multi-cluster-service controller) and every reader
// that looks one up: Karmada's name rule, the permanent id (which
// Karmada's admission webhook would assign; Propel runs without it), the
// binding controller's finalizer, the owner reference to the template and
// spec.resource.
package templatebinding

import (
	"context"

	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Key is the key of the binding of the template kind namespace/name:
// <name>-<kind> in the template's namespace (the apiVersion plays no
// part); a cluster-scoped template's key has no namespace and names a
// ClusterResourceBinding.
func Key(namespace, kind, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: namespace, Name: names.BindingName(kind, name)}
}

// Get reads the binding of the template kind namespace/name through c.
// The returned binding is never nil: on error it is an empty binding of
// the right kind with the key set, for messages.
func Get(ctx context.Context, c client.Reader, namespace, kind, name string) (workv1alpha2.Binding, error) {
	key := Key(namespace, kind, name)
	b := workv1alpha2.NewBindingFor(key)
	b.SetNamespace(key.Namespace)
	b.SetName(key.Name)
	return b, c.Get(ctx, key, b)
}

// ReferenceTo is spec.resource for the template obj.
func ReferenceTo(obj *unstructured.Unstructured) workv1alpha2.ObjectReference {
	return workv1alpha2.ObjectReference{
		APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName(),
		UID: obj.GetUID(), ResourceVersion: obj.GetResourceVersion(),
	}
}

// Ownership says whether the binding's owner reference to its template is
// the controller reference (a template's own binding) or a plain one (the
// multi-cluster-service controller's binding of a Service, as Karmada
// writes it).
type Ownership bool

const (
	// Controlled: the template is the binding's controller.
	Controlled Ownership = true
	// Owned: the template owns the binding without controlling it.
	Owned Ownership = false
)

// Bind makes b the binding of template, in place: it keeps b's permanent
// id or assigns one, adds the binding controller's finalizer, sets the
// owner reference to the template (blocking its deletion) as the only one,
// and sets spec.resource.
func Bind(b workv1alpha2.Binding, template workv1alpha2.ObjectReference, ownership Ownership) {
	if workv1alpha2.PermanentID(b) == "" {
		labels := b.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[b.PermanentIDLabel()] = uuid.NewString()
		b.SetLabels(labels)
	}
	finalizer := names.BindingControllerFinalizer
	if !b.Namespaced() {
		finalizer = names.ClusterResourceBindingControllerFinalizer
	}
	controllerutil.AddFinalizer(b, finalizer)
	ref := metav1.OwnerReference{
		APIVersion: template.APIVersion, Kind: template.Kind, Name: template.Name, UID: template.UID,
		BlockOwnerDeletion: ptr.To(true),
	}
	if ownership == Controlled {
		ref.Controller = ptr.To(true)
	}
	b.SetOwnerReferences([]metav1.OwnerReference{ref})
	b.BindingSpec().Resource = template
}
