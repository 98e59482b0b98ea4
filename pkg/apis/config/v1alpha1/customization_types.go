package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	knownTypes = append(knownTypes, &ResourceInterpreterCustomization{}, &ResourceInterpreterCustomizationList{})
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=resourceinterpretercustomizations,scope=Cluster,shortName=ric,categories={karmada-io}
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="TARGET-API-VERSION",type=string,JSONPath=`.spec.target.apiVersion`
// +kubebuilder:printcolumn:name="TARGET-KIND",type=string,JSONPath=`.spec.target.kind`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`

// ResourceInterpreterCustomization declares Lua rules that tell Karmada how to
// interpret one resource type (replicas, status, health, dependencies, ...).
// It takes precedence over interpreter webhooks and the built-in interpreters.
type ResourceInterpreterCustomization struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec describes the customization.
	// +required
	Spec ResourceInterpreterCustomizationSpec `json:"spec"`
}

// ResourceInterpreterCustomizationSpec describes a customization: the target
// resource type and its interpretation rules.
type ResourceInterpreterCustomizationSpec struct {
	// Target is the resource type the customization applies to.
	// +required
	Target CustomizationTarget `json:"target"`

	// Customizations holds the interpretation rules.
	// +required
	Customizations CustomizationRules `json:"customizations"`
}

// CustomizationTarget represents the resource type that the customization applies to.
type CustomizationTarget struct {
	// APIVersion is the API version of the target resource, e.g. "apps/v1".
	// +required
	APIVersion string `json:"apiVersion"`

	// Kind is the kind of the target resource.
	// +required
	Kind string `json:"kind"`
}

// CustomizationRules holds the interpretation rules, one per interpreter
// operation. Every rule is optional.
type CustomizationRules struct {
	// Retention describes how to keep values that member-cluster components change
	// on the applied object (for example replicas managed by a member HPA), so
	// Karmada and the member do not keep overwriting each other.
	// +optional
	Retention *LocalValueRetention `json:"retention,omitempty"`

	// ReplicaResource describes how to discover the replica count and the
	// per-replica resource requirements of the resource. Useful for workload-like
	// CRDs; when set it replaces the built-in rules for native kinds.
	// +optional
	ReplicaResource *ReplicaResourceRequirement `json:"replicaResource,omitempty"`

	// ComponentResource describes how to discover the replica count and resource
	// requirements of each component of a multi-component resource (e.g.
	// FlinkDeployment). When implemented it is used instead of ReplicaResource.
	// Only used when the feature gate 'MultiplePodTemplatesScheduling' is enabled.
	// +optional
	ComponentResource *ComponentResourceRequirement `json:"componentResource,omitempty"`

	// ReplicaRevision describes how to set the replica count of the resource.
	// Useful for workload-like CRDs; when set it replaces the built-in rules for native kinds.
	// +optional
	ReplicaRevision *ReplicaRevision `json:"replicaRevision,omitempty"`

	// StatusReflection describes how to pick the status of the resource observed
	// in a member cluster. When set it replaces the built-in rules.
	// +optional
	StatusReflection *StatusReflection `json:"statusReflection,omitempty"`

	// StatusAggregation describes how to aggregate the statuses collected from
	// member clusters into the resource template. When set it replaces the built-in rules.
	// +optional
	StatusAggregation *StatusAggregation `json:"statusAggregation,omitempty"`

	// HealthInterpretation describes how to assess the health of the resource.
	// +optional
	HealthInterpretation *HealthInterpretation `json:"healthInterpretation,omitempty"`

	// DependencyInterpretation describes how to find the resources this resource
	// depends on. When set it replaces the built-in rules.
	// +optional
	DependencyInterpretation *DependencyInterpretation `json:"dependencyInterpretation,omitempty"`
}

// LocalValueRetention holds the rule that retains member-cluster values.
type LocalValueRetention struct {
	// LuaScript must define the function
	// `Retain(desiredObj, observedObj)`, where desiredObj is the object to apply to
	// the member cluster and observedObj the object observed there. It returns the
	// desired object with the retained values, which is then applied.
	// +required
	LuaScript string `json:"luaScript"`
}

// ReplicaResourceRequirement holds the rule that discovers replicas and resource requirements.
type ReplicaResourceRequirement struct {
	// LuaScript must define the function `GetReplicas(desiredObj)`, where desiredObj
	// is the object to apply to the member cluster. It returns two values: the
	// replica count and the per-replica requirement (shaped like
	// ResourceBindingSpec.ReplicaRequirements: nodeClaim, resourceRequest, ...).
	// +required
	LuaScript string `json:"luaScript"`
}

// ComponentResourceRequirement holds the rule that discovers per-component replicas
// and resource requirements.
type ComponentResourceRequirement struct {
	// LuaScript must define the function `GetComponents(desiredObj)`, where
	// desiredObj is the object to apply to the member cluster. It returns a list of
	// components, each with a name, a replica count and optional requirements.
	// +required
	LuaScript string `json:"luaScript"`
}

// ReplicaRevision holds the rule that revises the replica count.
type ReplicaRevision struct {
	// LuaScript must define the function `ReviseReplica(desiredObj, desiredReplica)`,
	// where desiredObj is the object to apply to the member cluster and
	// desiredReplica the replica count to set. It returns the revised object.
	// +required
	LuaScript string `json:"luaScript"`
}

// StatusReflection holds the rule that reflects the status of an observed object.
type StatusReflection struct {
	// LuaScript must define the function `ReflectStatus(observedObj)`, where
	// observedObj is the object observed in a member cluster. It returns the status
	// (whole or partial), which is stored in Work and ResourceBinding.
	// +required
	LuaScript string `json:"luaScript"`
}

// StatusAggregation holds the rule that aggregates member statuses into the template.
type StatusAggregation struct {
	// LuaScript must define the function `AggregateStatus(desiredObj, statusItems)`,
	// where desiredObj is the resource template and statusItems the list of
	// AggregatedStatusItem. It returns the whole object with its status aggregated.
	// +required
	LuaScript string `json:"luaScript"`
}

// HealthInterpretation holds the rule that assesses the health of an object.
type HealthInterpretation struct {
	// LuaScript must define the function `InterpretHealth(observedObj)`, where
	// observedObj is the object observed in a member cluster. It returns a boolean
	// telling whether the object is healthy.
	// +required
	LuaScript string `json:"luaScript"`
}

// DependencyInterpretation holds the rule that finds the dependencies of an object.
type DependencyInterpretation struct {
	// LuaScript must define the function `GetDependencies(desiredObj)`, where
	// desiredObj is the object to apply to the member cluster. It returns a list of
	// DependentObjectReference.
	// +required
	LuaScript string `json:"luaScript"`
}

// +kubebuilder:object:root=true

// ResourceInterpreterCustomizationList contains a list of ResourceInterpreterCustomization.
type ResourceInterpreterCustomizationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items holds a list of ResourceInterpreterCustomization.
	Items []ResourceInterpreterCustomization `json:"items"`
}
