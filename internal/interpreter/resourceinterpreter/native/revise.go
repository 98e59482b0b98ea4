package native

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// reviseSpecField overwrites spec.<field>, in place, only when it is already
// set: an absent field stays absent, a non-integer one is an error.
func reviseSpecField(field string) reviseFunc {
	return func(obj *unstructured.Unstructured, replicas int64) (*unstructured.Unstructured, error) {
		_, found, err := unstructured.NestedInt64(obj.Object, "spec", field)
		if err != nil {
			return nil, err
		}
		if found {
			if err := unstructured.SetNestedField(obj.Object, replicas, "spec", field); err != nil {
				return nil, err
			}
		}
		return obj, nil
	}
}
