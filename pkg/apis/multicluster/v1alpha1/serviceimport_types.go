package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	knownTypes = append(knownTypes, &ServiceImport{}, &ServiceImportList{})
}

// ServiceImport describes a service that clusters of the set export; a
// consumer cluster reaches it through the derived Service.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=serviceimports,scope=Namespaced,shortName=svcim
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:JSONPath=`.spec.type`,name=`Type`,type=string,description=`The type of this ServiceImport`
// +kubebuilder:printcolumn:JSONPath=`.spec.ips`,name=`IP`,type=string,description=`The VIP for this ServiceImport`
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name=`Age`,type=date
type ServiceImport struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the imported service's type and ports.
	// +optional
	Spec ServiceImportSpec `json:"spec,omitempty"`

	// Status lists the exporting clusters (not written by Karmada or
	// Propel).
	// +optional
	Status ServiceImportStatus `json:"status,omitempty"`
}

// ServiceImportType is ClusterSetIP or Headless.
type ServiceImportType string

const (
	// ClusterSetIP services are reached through one virtual IP.
	ClusterSetIP ServiceImportType = "ClusterSetIP"
	// Headless services are reached through their endpoints' addresses.
	Headless ServiceImportType = "Headless"
)

// ServiceImportSpec describes an imported service.
type ServiceImportSpec struct {
	// Ports the service exposes.
	// +listType=atomic
	Ports []ServicePort `json:"ports"`

	// IPs holds the virtual IP of a ClusterSetIP service.
	// +kubebuilder:validation:MaxItems:=1
	// +optional
	IPs []string `json:"ips,omitempty"`

	// Type is ClusterSetIP or Headless.
	// +kubebuilder:validation:Enum=ClusterSetIP;Headless
	Type ServiceImportType `json:"type"`

	// SessionAffinity is ClientIP or None (the default); ignored for
	// Headless services.
	// +optional
	SessionAffinity corev1.ServiceAffinity `json:"sessionAffinity,omitempty"`

	// SessionAffinityConfig configures ClientIP session affinity.
	// +optional
	SessionAffinityConfig *SessionAffinityConfig `json:"sessionAffinityConfig,omitempty"`
}

// SessionAffinityConfig configures session affinity.
type SessionAffinityConfig struct {
	// ClientIP configures ClientIP session affinity.
	// +optional
	ClientIP *ClientIPConfig `json:"clientIP,omitempty"`
}

// ClientIPConfig configures ClientIP session affinity.
type ClientIPConfig struct {
	// TimeoutSeconds is how long a client sticks to one endpoint.
	// +optional
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
}

// ServicePort is one port of an imported service.
type ServicePort struct {
	// Name of the port, a DNS label; optional with a single port.
	// +optional
	Name string `json:"name,omitempty"`

	// Protocol is TCP (the default), UDP or SCTP.
	// +optional
	Protocol corev1.Protocol `json:"protocol,omitempty"`

	// AppProtocol is the application protocol of the port.
	// +optional
	AppProtocol *string `json:"appProtocol,omitempty"`

	// Port the service exposes.
	Port int32 `json:"port"`
}

// ServiceImportStatus lists the clusters that export the service.
type ServiceImportStatus struct {
	// Clusters that export the service.
	// +optional
	// +listType=map
	// +listMapKey=cluster
	Clusters []ClusterStatus `json:"clusters,omitempty"`
}

// ClusterStatus names one exporting cluster.
type ClusterStatus struct {
	// Cluster is the exporting cluster's name.
	Cluster string `json:"cluster"`
}

// ServiceImportList is a list of ServiceImports.
//
// +kubebuilder:object:root=true
type ServiceImportList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ServiceImport `json:"items"`
}
