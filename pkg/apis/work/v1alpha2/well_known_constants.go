package v1alpha2

// Labels and annotations Karmada puts on bindings and the objects derived
// from them (Works, member objects). They belong to this API group in
// Karmada; internal/shared/names re-exports them beside the other well-known keys.
const (
	// ResourceBindingPermanentIDLabel carries a ResourceBinding's permanent id.
	ResourceBindingPermanentIDLabel = "resourcebinding.karmada.io/permanent-id"
	// ClusterResourceBindingPermanentIDLabel carries a ClusterResourceBinding's permanent id.
	ClusterResourceBindingPermanentIDLabel = "clusterresourcebinding.karmada.io/permanent-id"
	// ResourceBindingNamespaceAnnotation names the namespace of the ResourceBinding a Work comes from.
	ResourceBindingNamespaceAnnotation = "resourcebinding.karmada.io/namespace"
	// ResourceBindingNameAnnotation names the ResourceBinding a Work comes from.
	ResourceBindingNameAnnotation = "resourcebinding.karmada.io/name"
	// ClusterResourceBindingNameAnnotation names the ClusterResourceBinding a Work comes from.
	ClusterResourceBindingNameAnnotation = "clusterresourcebinding.karmada.io/name"
)
