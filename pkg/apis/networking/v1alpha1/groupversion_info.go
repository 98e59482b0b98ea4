// Package v1alpha1 holds Propel's Go types for Karmada's networking.karmada.io/v1alpha1 API,
// wire-compatible with Karmada: same group, version, kinds, JSON keys, enum
// strings and defaults, so existing Karmada manifests apply unchanged.
//
// +kubebuilder:object:generate=true
// +groupName=networking.karmada.io
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version of this package's kinds.
	GroupVersion = schema.GroupVersion{Group: "networking.karmada.io", Version: "v1alpha1"}

	// SchemeBuilder registers this package's kinds with a runtime.Scheme.
	// It is apimachinery's builder (not controller-runtime's) so that API
	// packages depend on apimachinery only.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds this package's kinds to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// knownTypes lists this package's kinds; each kind's file appends to it in
// an init function.
var knownTypes []runtime.Object

// addKnownTypes registers knownTypes under GroupVersion, with the meta/v1
// option types (ListOptions and the like) every group serves.
func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, knownTypes...)
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
