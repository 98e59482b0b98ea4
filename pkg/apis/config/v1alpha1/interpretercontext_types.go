package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// The types in this file are the wire format of interpreter webhook calls. They
// are not persisted, so no CRD is generated for them (ResourceInterpreterContext
// has no ObjectMeta), but ResourceInterpreterContext is registered in the scheme so
// that webhook clients and servers can encode and decode it.

func init() {
	knownTypes = append(knownTypes, &ResourceInterpreterContext{})
}

// +kubebuilder:object:root=true

// ResourceInterpreterContext is the envelope of an interpreter webhook call: the
// request sent to the webhook and the response it returns.
type ResourceInterpreterContext struct {
	metav1.TypeMeta `json:",inline"`

	// Request describes the attributes of the interpreter request.
	// +optional
	Request *ResourceInterpreterRequest `json:"request,omitempty"`

	// Response describes the attributes of the interpreter response.
	// +optional
	Response *ResourceInterpreterResponse `json:"response,omitempty"`
}

// ResourceInterpreterRequest describes the attributes of an interpreter request.
type ResourceInterpreterRequest struct {
	// UID identifies this call; the response must carry the same UID.
	// +required
	UID types.UID `json:"uid"`

	// Kind is the fully-qualified type of the object.
	// +required
	Kind metav1.GroupVersionKind `json:"kind"`

	// Name is the name of the object.
	// +required
	Name string `json:"name"`

	// Namespace is the namespace of the object; empty for cluster-scoped objects.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Operation is the operation being performed.
	// +required
	Operation InterpreterOperation `json:"operation"`

	// Object is the object being interpreted.
	// +optional
	Object runtime.RawExtension `json:"object,omitempty"`

	// ObservedObject is the object observed in a member cluster (Retain only).
	// +optional
	ObservedObject *runtime.RawExtension `json:"observedObject,omitempty"`

	// DesiredReplicas is the desired replica count (ReviseReplica). Its JSON key is
	// "replicas".
	// +optional
	DesiredReplicas *int32 `json:"replicas,omitempty"`

	// AggregatedStatus is the statuses collected from member clusters (AggregateStatus only).
	// +optional
	AggregatedStatus []workv1alpha2.AggregatedStatusItem `json:"aggregatedStatus,omitempty"`
}

// ResourceInterpreterResponse describes the attributes of an interpreter response.
type ResourceInterpreterResponse struct {
	// UID must equal the UID of the request.
	// +required
	UID types.UID `json:"uid"`

	// Successful tells whether the interpretation succeeded.
	// +required
	Successful bool `json:"successful"`

	// Status carries the result details; required when Successful is false.
	// +optional
	Status *RequestStatus `json:"status,omitempty"`

	// Patch is the JSON patch to apply to the object (ReviseReplica, Retain,
	// AggregateStatus). Base64-encoded in JSON.
	// +optional
	Patch []byte `json:"patch,omitempty"`

	// PatchType is the type of Patch; only "JSONPatch" is supported.
	// +optional
	PatchType *PatchType `json:"patchType,omitempty"`

	// Replicas is the replica count declared by the object (InterpretReplica).
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// ReplicaRequirements is the resource requirement of each replica (InterpretReplica).
	// +optional
	ReplicaRequirements *workv1alpha2.ReplicaRequirements `json:"replicaRequirements,omitempty"`

	// Components is the list of components with their replicas and requirements
	// (InterpretComponent).
	// +optional
	Components []workv1alpha2.Component `json:"components,omitempty"`

	// Dependencies is the list of resources the object depends on (InterpretDependency).
	// +optional
	Dependencies []DependentObjectReference `json:"dependencies,omitempty"`

	// RawStatus is the status extracted from the observed object (InterpretStatus).
	// +optional
	RawStatus *runtime.RawExtension `json:"rawStatus,omitempty"`

	// Healthy tells whether the observed object is healthy (InterpretHealth).
	// +optional
	Healthy *bool `json:"healthy,omitempty"`
}

// RequestStatus holds the status of an interpreter request.
type RequestStatus struct {
	// Message is a human-readable description of the result.
	// +optional
	Message string `json:"message,omitempty"`

	// Code is the HTTP status code of the result.
	// +optional
	Code int32 `json:"code,omitempty"`
}

// PatchType is the type of a patch in ResourceInterpreterResponse.
type PatchType string

// Patch types.
const (
	// PatchTypeJSONPatch is an RFC 6902 JSON patch.
	PatchTypeJSONPatch PatchType = "JSONPatch"
)

// DependentObjectReference identifies an object, or a set of objects selected by
// labels, that another object depends on.
type DependentObjectReference struct {
	// APIVersion is the API version of the referent.
	// +required
	APIVersion string `json:"apiVersion"`

	// Kind is the kind of the referent.
	// +required
	Kind string `json:"kind"`

	// Namespace is the namespace of the referent; empty for cluster-scoped referents.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Name is the name of the referent. Either Name or LabelSelector must be set;
	// Name takes precedence when both are.
	// +optional
	Name string `json:"name,omitempty"`

	// LabelSelector selects the referents by label. Ignored when Name is set.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
}
