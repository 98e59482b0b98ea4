// Package v1alpha1 holds Propel's Go types for Karmada's cluster.karmada.io/v1alpha1 API,
// wire-compatible with Karmada: same group, version, kinds, JSON keys, enum
// strings and defaults, so existing Karmada manifests apply unchanged.
//
// +kubebuilder:object:generate=true
// +groupName=cluster.karmada.io
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of this package's kinds.
	GroupVersion = schema.GroupVersion{Group: "cluster.karmada.io", Version: "v1alpha1"}

	// SchemeBuilder registers this package's kinds with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds this package's kinds to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
