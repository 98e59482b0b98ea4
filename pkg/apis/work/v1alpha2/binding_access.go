package v1alpha2

import (
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
