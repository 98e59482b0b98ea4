package overrides

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// applyLabelsAnnotations applies one labels or annotations overrider
// (field is "labels" or "annotations"): replace and remove act only on
// keys that exist; add creates the map when missing and sets the key.
func applyLabelsAnnotations(obj *unstructured.Unstructured, field string, o *policyv1alpha1.LabelAnnotationOverrider) *pathError {
	if len(o.Value) == 0 {
		return nil
	}
	m, err := metadataMap(obj, field, o.Operator == policyv1alpha1.OverriderOpAdd)
	if err != nil {
		return &pathError{path: "/metadata/" + field, err: err}
	}
	for key, value := range o.Value {
		switch o.Operator {
		case policyv1alpha1.OverriderOpAdd:
			m[key] = value
		case policyv1alpha1.OverriderOpReplace:
			if _, ok := m[key]; ok {
				m[key] = value
			}
		case policyv1alpha1.OverriderOpRemove:
			delete(m, key)
		default:
			path := "/metadata/" + field + "/" + strings.ReplaceAll(key, "/", "~1")
			return &pathError{path: path, err: fmt.Errorf("%w %q (want add, remove or replace)", errUnsupportedOperator, o.Operator)}
		}
	}
	return nil
}

// metadataMap returns obj's metadata.<field> map for in-place changes. A
// missing map is created when create is set, else an empty throwaway map
// is returned.
func metadataMap(obj *unstructured.Unstructured, field string, create bool) (map[string]interface{}, error) {
	meta, ok := obj.Object["metadata"].(map[string]interface{})
	if !ok {
		if !create {
			return map[string]interface{}{}, nil
		}
		meta = map[string]interface{}{}
		obj.Object["metadata"] = meta
	}
	switch m := meta[field].(type) {
	case map[string]interface{}:
		return m, nil
	case nil:
		if !create {
			return map[string]interface{}{}, nil
		}
		created := map[string]interface{}{}
		meta[field] = created
		return created, nil
	default:
		return nil, fmt.Errorf("metadata.%s is a %T, not a map", field, m)
	}
}
