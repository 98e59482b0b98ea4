package webhook

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// contextKind is the kind of the wire envelope.
const contextKind = "ResourceInterpreterContext"

// attributes are what one operation sends (spec §1.3): the object, and for
// Retain the observed object, for ReviseReplica the desired replicas, for
// AggregateStatus the status items.
type attributes struct {
	op       configv1alpha1.InterpreterOperation
	object   *unstructured.Unstructured
	observed *unstructured.Unstructured
	replicas int32
	items    []workv1alpha2.AggregatedStatusItem
	// objectJSON is object encoded, kept to apply the returned patch.
	objectJSON []byte
}

// encodeRequest builds the request envelope with a fresh uid. replicas is
// always sent: a non-nil pointer is emitted even when it points to 0.
func encodeRequest(a *attributes) (types.UID, []byte, error) {
	objectJSON, err := json.Marshal(a.object.Object)
	if err != nil {
		return "", nil, fmt.Errorf("encode object: %w", err)
	}
	a.objectJSON = objectJSON
	gvk := a.object.GroupVersionKind()
	req := &configv1alpha1.ResourceInterpreterRequest{
		UID:              uuid.NewUUID(),
		Kind:             metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Name:             a.object.GetName(),
		Namespace:        a.object.GetNamespace(),
		Operation:        a.op,
		Object:           runtime.RawExtension{Raw: objectJSON},
		DesiredReplicas:  &a.replicas,
		AggregatedStatus: a.items,
	}
	if a.observed != nil {
		observedJSON, err := json.Marshal(a.observed.Object)
		if err != nil {
			return "", nil, fmt.Errorf("encode observed object: %w", err)
		}
		req.ObservedObject = &runtime.RawExtension{Raw: observedJSON}
	}
	body, err := json.Marshal(&configv1alpha1.ResourceInterpreterContext{
		TypeMeta: metav1.TypeMeta{APIVersion: configv1alpha1.GroupVersion.String(), Kind: contextKind},
		Request:  req,
	})
	if err != nil {
		return "", nil, fmt.Errorf("encode request: %w", err)
	}
	return req.UID, body, nil
}
