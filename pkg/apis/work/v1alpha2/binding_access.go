package v1alpha2

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Kinds of the two binding types, for messages, logs and events (typed
// objects read from a cache carry no TypeMeta).
const (
	ResourceBindingKind        = "ResourceBinding"
	ClusterResourceBindingKind = "ClusterResourceBinding"
)

// Binding is what a ResourceBinding and a ClusterResourceBinding have in
// common: the same spec and status types, one permanent-id label each, and
// the annotations their Works carry to name them. Controllers that handle
// both kinds work on a Binding instead of switching on the type.
// +kubebuilder:object:generate=false
type Binding interface {
	// The methods of controller-runtime's client.Object, spelled out from
	// apimachinery so that controller-gen can load this package.
	metav1.Object
	runtime.Object

	// BindingKind is ResourceBindingKind or ClusterResourceBindingKind.
	BindingKind() string
	// Namespaced is true for a ResourceBinding.
	Namespaced() bool
	// BindingSpec is the binding's spec (a pointer into the object).
	BindingSpec() *ResourceBindingSpec
	// BindingStatus is the binding's status (a pointer into the object).
	BindingStatus() *ResourceBindingStatus
	// PermanentIDLabel is the key of the binding's permanent-id label,
	// which its Works carry too.
	PermanentIDLabel() string
	// WorkAnnotations are the annotations that name the binding on its
	// Works and their manifests.
	WorkAnnotations() map[string]string
}

var (
	_ Binding = &ResourceBinding{}
	_ Binding = &ClusterResourceBinding{}
)

// BindingKind is ResourceBindingKind.
func (*ResourceBinding) BindingKind() string { return ResourceBindingKind }

// Namespaced is true: a ResourceBinding lives in its template's namespace.
func (*ResourceBinding) Namespaced() bool { return true }

// BindingSpec returns &rb.Spec.
func (rb *ResourceBinding) BindingSpec() *ResourceBindingSpec { return &rb.Spec }

// BindingStatus returns &rb.Status.
func (rb *ResourceBinding) BindingStatus() *ResourceBindingStatus { return &rb.Status }

// PermanentIDLabel is resourcebinding.karmada.io/permanent-id.
func (*ResourceBinding) PermanentIDLabel() string { return ResourceBindingPermanentIDLabel }

// WorkAnnotations are resourcebinding.karmada.io/namespace and /name.
func (rb *ResourceBinding) WorkAnnotations() map[string]string {
	return map[string]string{
		ResourceBindingNamespaceAnnotation: rb.Namespace,
		ResourceBindingNameAnnotation:      rb.Name,
	}
}

// BindingKind is ClusterResourceBindingKind.
func (*ClusterResourceBinding) BindingKind() string { return ClusterResourceBindingKind }

// Namespaced is false.
func (*ClusterResourceBinding) Namespaced() bool { return false }

// BindingSpec returns &crb.Spec.
func (crb *ClusterResourceBinding) BindingSpec() *ResourceBindingSpec { return &crb.Spec }

// BindingStatus returns &crb.Status.
func (crb *ClusterResourceBinding) BindingStatus() *ResourceBindingStatus { return &crb.Status }

// PermanentIDLabel is clusterresourcebinding.karmada.io/permanent-id.
func (*ClusterResourceBinding) PermanentIDLabel() string {
	return ClusterResourceBindingPermanentIDLabel
}

// WorkAnnotations is clusterresourcebinding.karmada.io/name.
func (crb *ClusterResourceBinding) WorkAnnotations() map[string]string {
	return map[string]string{ClusterResourceBindingNameAnnotation: crb.Name}
}

// BindingOfWork is the inverse of WorkAnnotations: the key of the
// ResourceBinding (namespaced) or ClusterResourceBinding that a Work's
// annotations name, and false when they name none of that kind.
func BindingOfWork(annotations map[string]string, namespaced bool) (types.NamespacedName, bool) {
	if namespaced {
		key := types.NamespacedName{Namespace: annotations[ResourceBindingNamespaceAnnotation], Name: annotations[ResourceBindingNameAnnotation]}
		return key, key.Namespace != "" && key.Name != ""
	}
	key := types.NamespacedName{Name: annotations[ClusterResourceBindingNameAnnotation]}
	return key, key.Name != ""
}

// PermanentID is the value of b's permanent-id label ("" before the
// detector assigned it).
func PermanentID(b Binding) string { return b.GetLabels()[b.PermanentIDLabel()] }

// AsBinding returns obj as a Binding, or false when it is neither a
// ResourceBinding nor a ClusterResourceBinding.
func AsBinding(obj client.Object) (Binding, bool) {
	b, ok := obj.(Binding)
	return b, ok
}

// NewBindingFor returns an empty binding of the kind key addresses: a
// key without a namespace names a ClusterResourceBinding.
func NewBindingFor(key types.NamespacedName) Binding {
	if key.Namespace == "" {
		return &ClusterResourceBinding{}
	}
	return &ResourceBinding{}
}

// BindingList is what ResourceBindingList and ClusterResourceBindingList
// have in common.
// +kubebuilder:object:generate=false
type BindingList interface {
	metav1.ListInterface
	runtime.Object

	// Bindings returns the list's items as Bindings (pointers into the
	// list).
	Bindings() []Binding
}

var (
	_ BindingList = &ResourceBindingList{}
	_ BindingList = &ClusterResourceBindingList{}
)

// Bindings returns pointers to l.Items.
func (l *ResourceBindingList) Bindings() []Binding {
	out := make([]Binding, len(l.Items))
	for i := range l.Items {
		out[i] = &l.Items[i]
	}
	return out
}

// Bindings returns pointers to l.Items.
func (l *ClusterResourceBindingList) Bindings() []Binding {
	out := make([]Binding, len(l.Items))
	for i := range l.Items {
		out[i] = &l.Items[i]
	}
	return out
}

// NewBindingList returns an empty ResourceBindingList (namespaced) or
// ClusterResourceBindingList.
func NewBindingList(namespaced bool) BindingList {
	if namespaced {
		return &ResourceBindingList{}
	}
	return &ClusterResourceBindingList{}
}

// ListBindings lists the ResourceBindings of namespace ("" for every
// namespace) and, when clusterScoped, every ClusterResourceBinding, each
// list with opts.
func ListBindings(ctx context.Context, c client.Reader, namespace string, clusterScoped bool, opts ...client.ListOption) ([]Binding, error) {
	rbs := &ResourceBindingList{}
	rbOpts := opts
	if namespace != "" {
		rbOpts = append(append([]client.ListOption{}, opts...), client.InNamespace(namespace))
	}
	if err := c.List(ctx, rbs, rbOpts...); err != nil {
		return nil, fmt.Errorf("list %ss: %w", ResourceBindingKind, err)
	}
	out := rbs.Bindings()
	if !clusterScoped {
		return out, nil
	}
	crbs := &ClusterResourceBindingList{}
	if err := c.List(ctx, crbs, opts...); err != nil {
		return nil, fmt.Errorf("list %ss: %w", ClusterResourceBindingKind, err)
	}
	return append(out, crbs.Bindings()...), nil
}

// BindingName names b in messages and errors: "ResourceBinding ns/name"
// or "ClusterResourceBinding name".
func BindingName(b Binding) string {
	if b.Namespaced() {
		return b.BindingKind() + " " + b.GetNamespace() + "/" + b.GetName()
	}
	return b.BindingKind() + " " + b.GetName()
}

// IsWorkload reports whether the binding's resource carries replicas:
// spec.replicas > 0, spec.replicaRequirements set, or spec.components
// present. It is Karmada's rule (ResourceBindingSpec.IsWorkload): a kind
// without an InterpretReplica hook gets none of the three and is then
// propagated whole to every selected cluster, without replica revision.
//
// Replica assignment asks a narrower question (scheduler/assign:
// UsesStrategy, replicas or requirements with at most one component), and
// estimation another (scheduler/estimator: replicas or components); those
// are different rules of Karmada's scheduler, not copies of this one.
func (s *ResourceBindingSpec) IsWorkload() bool {
	return s.Replicas > 0 || s.ReplicaRequirements != nil || len(s.Components) > 0
}
