package names

// Multi-cluster service controllers' names (Karmada's; also the event
// source components).
const (
	ServiceExportControllerName         = "service-export-controller"
	EndpointSliceControllerName         = "endpointslice-controller"
	ServiceImportControllerName         = "service-import-controller"
	MultiClusterServiceControllerName   = "multiclusterservice-controller"
	EndpointSliceCollectControllerName  = "endpointslice-collect-controller"
	EndpointSliceDispatchControllerName = "endpointslice-dispatch-controller"
)

// Keys of the multi-cluster service paths (Karmada's).
const (
	// EndpointSliceNamespaceLabel and EndpointSliceNameLabel are on a Work
	// collected for a ServiceExport: the exported Service's namespace and
	// name.
	EndpointSliceNamespaceLabel = "endpointslice.karmada.io/namespace"
	EndpointSliceNameLabel      = "endpointslice.karmada.io/name"
	// EndpointSliceWorkManagedByLabel is the "."-joined set of paths
	// (ServiceExport, MultiClusterService) that use a collected Work.
	EndpointSliceWorkManagedByLabel = "endpointslice.karmada.io/managed-by"
	// EndpointSliceProvisionClusterAnnotation is on a dispatched Work and
	// its EndpointSlice: the provider cluster the endpoints come from.
	EndpointSliceProvisionClusterAnnotation = "endpointslice.karmada.io/provision-cluster"

	// MultiClusterServiceNamespaceLabel and MultiClusterServiceNameLabel
	// are on MCS Works and the EndpointSlice Works of the MCS path.
	MultiClusterServiceNamespaceLabel = "multiclusterservice.karmada.io/namespace"
	MultiClusterServiceNameLabel      = "multiclusterservice.karmada.io/name"
	// MultiClusterServicePermanentIDLabel identifies an MCS on the MCS,
	// its Works, the claimed Service and the binding it builds.
	MultiClusterServicePermanentIDLabel = "multiclusterservice.karmada.io/permanent-id"
	// MultiClusterServiceNameAnnotation and
	// MultiClusterServiceNamespaceAnnotation are on the claimed Service and
	// the binding the MCS builds.
	MultiClusterServiceNameAnnotation      = "multiclusterservice.karmada.io/name"
	MultiClusterServiceNamespaceAnnotation = "multiclusterservice.karmada.io/namespace"

	// KubeServiceNameLabel ties an EndpointSlice to its Service.
	KubeServiceNameLabel = "kubernetes.io/service-name"
	// KubeEndpointSliceManagedByLabel names an EndpointSlice's manager;
	// slices with one of Karmada's values are never collected (loop guard).
	KubeEndpointSliceManagedByLabel = "endpointslice.kubernetes.io/managed-by"
	// EndpointSliceControllerManagedByValue marks the control-plane copies
	// of the ServiceExport path.
	EndpointSliceControllerManagedByValue = "endpointslice-controller.karmada.io"
	// EndpointSliceDispatchManagedByValue marks the copies the MCS path
	// dispatches to consumer clusters.
	EndpointSliceDispatchManagedByValue = "endpointslice-dispatch-controller.karmada.io"

	// ManagedByServiceExport and ManagedByMultiClusterService are the
	// members of the managed-by set, and the claimed-by and binding
	// managed-by values of the MCS path.
	ManagedByServiceExport       = "ServiceExport"
	ManagedByMultiClusterService = "MultiClusterService"

	// ImportedEndpointSlicePrefix prefixes the control-plane copy of a
	// member slice: imported-<cluster>-<name>.
	ImportedEndpointSlicePrefix = "imported-"
)

// Finalizers of the multi-cluster service paths.
const (
	EndpointSliceControllerFinalizer            = "karmada.io/endpointslice-controller"
	MCSEndpointSliceDispatchControllerFinalizer = "karmada.io/mcs-endpointslice-dispatch-controller"
	MultiClusterServiceControllerFinalizer      = "karmada.io/multiclusterservice-controller"
)

// ImportedEndpointSliceName is the control-plane name of the slice name of
// cluster's exported service.
func ImportedEndpointSliceName(cluster, name string) string {
	return ImportedEndpointSlicePrefix + cluster + "-" + name
}
