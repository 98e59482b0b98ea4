package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	knownTypes = append(knownTypes,
		&OverridePolicy{}, &OverridePolicyList{},
		&ClusterOverridePolicy{}, &ClusterOverridePolicyList{},
	)
}

// OverridePolicy describes per-cluster changes applied to namespaced
// resource templates in its own namespace when they are propagated.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=overridepolicies,scope=Namespaced,shortName=op,categories={karmada-io}
type OverridePolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired override behavior.
	// +required
	Spec OverrideSpec `json:"spec"`
}

// OverridePolicyList is a list of OverridePolicy.
//
// +kubebuilder:object:root=true
type OverridePolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []OverridePolicy `json:"items"`
}

// ClusterOverridePolicy is the cluster-scoped counterpart of OverridePolicy:
// it may select cluster-scoped resources and namespaced resources in any
// namespace.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusteroverridepolicies,scope=Cluster,shortName=cop,categories={karmada-io}
type ClusterOverridePolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired override behavior.
	// +required
	Spec OverrideSpec `json:"spec"`
}

// ClusterOverridePolicyList is a list of ClusterOverridePolicy.
//
// +kubebuilder:object:root=true
type ClusterOverridePolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []ClusterOverridePolicy `json:"items"`
}

// OverrideSpec is the specification of a (Cluster)OverridePolicy.
type OverrideSpec struct {
	// ResourceSelectors selects the resource templates to override. Empty
	// selects every resource.
	// +optional
	ResourceSelectors []ResourceSelector `json:"resourceSelectors,omitempty"`

	// OverrideRules lists overriders together with the clusters they apply
	// to.
	// +optional
	OverrideRules []RuleWithCluster `json:"overrideRules,omitempty"`

	// TargetCluster selects the clusters Overriders applies to.
	// Deprecated: use OverrideRules. Used only when OverrideRules is empty.
	// +optional
	TargetCluster *ClusterAffinity `json:"targetCluster,omitempty"`

	// Overriders are the changes applied to TargetCluster.
	// Deprecated: use OverrideRules. Used only when OverrideRules is empty.
	// +optional
	Overriders Overriders `json:"overriders,omitempty,omitzero"`
}

// RuleWithCluster binds overriders to a set of clusters.
type RuleWithCluster struct {
	// TargetCluster selects the clusters; nil means all clusters.
	// +optional
	TargetCluster *ClusterAffinity `json:"targetCluster,omitempty"`

	// Overriders are the changes to apply.
	// +required
	Overriders Overriders `json:"overriders"`
}

// Overriders lists the changes applied to a resource. Kinds are applied in
// this order: Plaintext, ImageOverrider, CommandOverrider, ArgsOverrider,
// LabelsOverrider, AnnotationsOverrider, FieldOverrider.
type Overriders struct {
	// Plaintext applies raw JSON patch operations.
	// +optional
	Plaintext []PlaintextOverrider `json:"plaintext,omitempty"`

	// ImageOverrider changes container images.
	// +optional
	ImageOverrider []ImageOverrider `json:"imageOverrider,omitempty"`

	// CommandOverrider changes container commands.
	// +optional
	CommandOverrider []CommandArgsOverrider `json:"commandOverrider,omitempty"`

	// ArgsOverrider changes container args.
	// +optional
	ArgsOverrider []CommandArgsOverrider `json:"argsOverrider,omitempty"`

	// LabelsOverrider changes labels.
	// +optional
	LabelsOverrider []LabelAnnotationOverrider `json:"labelsOverrider,omitempty"`

	// AnnotationsOverrider changes annotations.
	// +optional
	AnnotationsOverrider []LabelAnnotationOverrider `json:"annotationsOverrider,omitempty"`

	// FieldOverrider changes values embedded as JSON or YAML documents in
	// string fields.
	// +optional
	FieldOverrider []FieldOverrider `json:"fieldOverrider,omitempty"`
}

// OverriderOperator is the operation an overrider performs.
type OverriderOperator string

const (
	// OverriderOpAdd adds a value.
	OverriderOpAdd OverriderOperator = "add"
	// OverriderOpRemove removes a value.
	OverriderOpRemove OverriderOperator = "remove"
	// OverriderOpReplace replaces a value.
	OverriderOpReplace OverriderOperator = "replace"
)

// PlaintextOverrider is a JSON patch operation on the resource.
type PlaintextOverrider struct {
	// Path is the RFC 6901 JSON pointer of the target field.
	// +required
	Path string `json:"path"`

	// Operator is the operation.
	// +kubebuilder:validation:Enum=add;remove;replace
	// +required
	Operator OverriderOperator `json:"operator"`

	// Value is the value for add and replace; ignored for remove.
	// +optional
	Value apiextensionsv1.JSON `json:"value,omitempty"`
}

// ImageComponent is a part of a container image reference.
type ImageComponent string

const (
	// Registry is the registry host (and port) of an image.
	Registry ImageComponent = "Registry"
	// Repository is the repository path of an image.
	Repository ImageComponent = "Repository"
	// Tag is the tag or digest of an image.
	Tag ImageComponent = "Tag"
)

// ImageOverrider changes one component of container images.
type ImageOverrider struct {
	// Predicate selects a single image field by path. Nil means every
	// container image of known workload kinds.
	// +optional
	Predicate *ImagePredicate `json:"predicate,omitempty"`

	// Component is the part of the image to change.
	// +kubebuilder:validation:Enum=Registry;Repository;Tag
	// +required
	Component ImageComponent `json:"component"`

	// Operator is the operation.
	// +kubebuilder:validation:Enum=add;remove;replace
	// +required
	Operator OverriderOperator `json:"operator"`

	// Value is the value for add and replace; ignored for remove.
	// +optional
	Value string `json:"value,omitempty"`
}

// ImagePredicate locates an image field.
type ImagePredicate struct {
	// Path is the JSON pointer of the image field.
	// +required
	Path string `json:"path"`
}

// CommandArgsOverrider changes the command or args of a container.
type CommandArgsOverrider struct {
	// ContainerName is the container to change.
	// +required
	ContainerName string `json:"containerName"`

	// Operator is the operation.
	// +kubebuilder:validation:Enum=add;remove
	// +required
	Operator OverriderOperator `json:"operator"`

	// Value lists the items to append or remove.
	// +optional
	Value []string `json:"value,omitempty"`
}

// LabelAnnotationOverrider changes labels or annotations.
type LabelAnnotationOverrider struct {
	// Operator is the operation.
	// +kubebuilder:validation:Enum=add;remove;replace
	// +required
	Operator OverriderOperator `json:"operator"`

	// Value holds the keys (and values) to change.
	// +required
	Value map[string]string `json:"value"`
}

// FieldOverrider changes a string field that holds a JSON or YAML document.
type FieldOverrider struct {
	// FieldPath is the RFC 6901 JSON pointer of the string field.
	// +required
	FieldPath string `json:"fieldPath"`

	// JSON lists patch operations on a JSON document.
	// +optional
	JSON []JSONPatchOperation `json:"json,omitempty"`

	// YAML lists patch operations on a YAML document.
	// +optional
	YAML []YAMLPatchOperation `json:"yaml,omitempty"`
}

// JSONPatchOperation is a patch operation on a JSON document.
type JSONPatchOperation struct {
	// SubPath is the JSON pointer inside the document.
	// +required
	SubPath string `json:"subPath"`

	// Operator is the operation.
	// +kubebuilder:validation:Enum=add;remove;replace
	// +required
	Operator OverriderOperator `json:"operator"`

	// Value is the value for add and replace; ignored for remove.
	// +optional
	Value apiextensionsv1.JSON `json:"value,omitempty"`
}

// YAMLPatchOperation is a patch operation on a YAML document.
type YAMLPatchOperation struct {
	// SubPath is the JSON pointer inside the document.
	// +required
	SubPath string `json:"subPath"`

	// Operator is the operation.
	// +kubebuilder:validation:Enum=add;remove;replace
	// +required
	Operator OverriderOperator `json:"operator"`

	// Value is the value for add and replace; ignored for remove.
	// +optional
	Value apiextensionsv1.JSON `json:"value,omitempty"`
}
