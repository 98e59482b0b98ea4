package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func init() {
	knownTypes = append(knownTypes, &ServiceExport{}, &ServiceExportList{})
}

// ServiceExport exports the Service of the same namespace and name from the
// member cluster that holds it: its EndpointSlices become available to the
// clusters that import the service.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=serviceexports,scope=Namespaced,shortName=svcex
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name=`Age`,type=date
type ServiceExport struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Status is the state of the export, written by the implementation
	// (Karmada and Propel leave it empty).
	// +optional
	Status ServiceExportStatus `json:"status,omitempty"`
}

// ServiceExportStatus holds the conditions of an export.
type ServiceExportStatus struct {
	// Conditions of the export.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ServiceExportList is a list of ServiceExports.
//
// +kubebuilder:object:root=true
type ServiceExportList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ServiceExport `json:"items"`
}
