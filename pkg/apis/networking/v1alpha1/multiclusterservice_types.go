package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	knownTypes = append(knownTypes, &MultiClusterService{}, &MultiClusterServiceList{})
}

// MultiClusterService exposes the Service of the same namespace and name
// across clusters: the endpoints of the provider clusters are dispatched to
// the consumer clusters.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=multiclusterservices,scope=Namespaced,shortName=mcs,categories={karmada-io}
// +kubebuilder:subresource:status
type MultiClusterService struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec says how the service is exposed and between which clusters.
	// +required
	Spec MultiClusterServiceSpec `json:"spec"`

	// Status holds the ServiceApplied and EndpointSliceDispatched
	// conditions.
	// +optional
	Status corev1.ServiceStatus `json:"status,omitempty"`
}

// MultiClusterServiceSpec is the exposure of one service.
type MultiClusterServiceSpec struct {
	// Types of exposure: CrossCluster and/or LoadBalancer.
	// +required
	Types []ExposureType `json:"types"`

	// Ports is deprecated and ignored.
	// +optional
	Ports []ExposurePort `json:"ports,omitempty"`

	// Range is deprecated and ignored.
	// +optional
	Range ExposureRange `json:"range,omitempty"`

	// ServiceProvisionClusters is deprecated; use ProviderClusters.
	// +optional
	ServiceProvisionClusters []string `json:"serviceProvisionClusters,omitempty"`

	// ServiceConsumptionClusters is deprecated; use ConsumerClusters.
	// +optional
	ServiceConsumptionClusters []string `json:"serviceConsumptionClusters,omitempty"`

	// ProviderClusters are the clusters whose endpoints are collected;
	// empty means every cluster.
	// +optional
	ProviderClusters []ClusterSelector `json:"providerClusters,omitempty"`

	// ConsumerClusters are the clusters the endpoints are dispatched to;
	// empty means every cluster.
	// +optional
	ConsumerClusters []ClusterSelector `json:"consumerClusters,omitempty"`
}

// ExposureType is how a service is exposed.
type ExposureType string

const (
	// ExposureTypeCrossCluster exposes the service to the other clusters.
	ExposureTypeCrossCluster ExposureType = "CrossCluster"
	// ExposureTypeLoadBalancer exposes the service through a load balancer.
	ExposureTypeLoadBalancer ExposureType = "LoadBalancer"
)

// ExposurePort is a deprecated port selection.
type ExposurePort struct {
	// Name of the port.
	// +optional
	Name string `json:"name,omitempty"`

	// Port number.
	// +required
	Port int32 `json:"port"`
}

// ExposureRange is a deprecated cluster selection.
type ExposureRange struct {
	// ClusterNames selected.
	// +optional
	ClusterNames []string `json:"clusterNames,omitempty"`
}

// ClusterSelector names one cluster.
type ClusterSelector struct {
	// Name of the cluster.
	// +required
	Name string `json:"name"`
}

// Condition types and reasons of a MultiClusterService.
const (
	// ServiceAppliedConditionType tells whether the Service was propagated
	// to the provider and consumer clusters.
	ServiceAppliedConditionType = "ServiceApplied"
	// EndpointSliceDispatchedConditionType tells whether the providers'
	// EndpointSlices were dispatched to the consumers.
	EndpointSliceDispatchedConditionType = "EndpointSliceDispatched"

	ServiceAppliedSucceedReason          = "ServiceAppliedSucceed"
	ServiceAppliedFailedReason           = "ServiceAppliedFailed"
	EndpointSliceDispatchedSucceedReason = "EndpointSliceDispatchedSucceed"
	EndpointSliceDispatchedFailedReason  = "EndpointSliceDispatchedFailed"
)

// MultiClusterServiceList is a list of MultiClusterServices.
//
// +kubebuilder:object:root=true
type MultiClusterServiceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MultiClusterService `json:"items"`
}
