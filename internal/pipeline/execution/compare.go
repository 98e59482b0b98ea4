package execution

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// serverMetadata are the metadata fields the member's API server owns; an
// update cannot change them, so comparisons skip them.
var serverMetadata = map[string]bool{
	"creationTimestamp": true, "deletionTimestamp": true, "deletionGracePeriodSeconds": true,
	"generation": true, "managedFields": true, "resourceVersion": true, "selfLink": true, "uid": true,
}

// upToDate reports whether updating observed with desired (already
// retained) would change nothing: the objects are equal apart from status
// and server-set metadata. It allocates nothing.
func upToDate(desired, observed *unstructured.Unstructured) bool {
	return objectsEqual(desired.Object, observed.Object)
}

// objectsEqual compares two objects, skipping status and server-set
// metadata. Absent, null and empty maps or lists are equal.
func objectsEqual(a, b map[string]interface{}) bool {
	for k, va := range a {
		if k == "status" {
			continue
		}
		vb := b[k]
		if k == "metadata" {
			if !metadataEqual(va, vb) {
				return false
			}
			continue
		}
		if !valuesEqual(va, vb) {
			return false
		}
	}
	for k, vb := range b {
		if k == "status" || k == "metadata" {
			continue
		}
		if _, ok := a[k]; !ok && !isEmpty(vb) {
			return false
		}
	}
	return true
}

func metadataEqual(a, b interface{}) bool {
	ma, _ := a.(map[string]interface{})
	mb, _ := b.(map[string]interface{})
	for k, va := range ma {
		if !serverMetadata[k] && !valuesEqual(va, mb[k]) {
			return false
		}
	}
	for k, vb := range mb {
		if _, ok := ma[k]; !ok && !serverMetadata[k] && !isEmpty(vb) {
			return false
		}
	}
	return true
}

// valuesEqual compares JSON values: numbers by value whatever their Go
// type, containers recursively, empty containers equal to null.
func valuesEqual(a, b interface{}) bool {
	switch va := a.(type) {
	case map[string]interface{}:
		vb, ok := b.(map[string]interface{})
		if !ok {
			return len(va) == 0 && isEmpty(b)
		}
		return mapsEqual(va, vb)
	case []interface{}:
		vb, ok := b.([]interface{})
		if !ok {
			return len(va) == 0 && isEmpty(b)
		}
		if len(va) != len(vb) {
			return false
		}
		for i := range va {
			if !valuesEqual(va[i], vb[i]) {
				return false
			}
		}
		return true
	case nil:
		return isEmpty(b)
	case string:
		vb, ok := b.(string)
		return ok && va == vb
	case bool:
		vb, ok := b.(bool)
		return ok && va == vb
	case int64:
		if vb, ok := b.(int64); ok {
			return va == vb
		}
	}
	na, okA := number(a)
	nb, okB := number(b)
	return okA && okB && na == nb
}

func mapsEqual(a, b map[string]interface{}) bool {
	for k, va := range a {
		if !valuesEqual(va, b[k]) {
			return false
		}
	}
	for k, vb := range b {
		if _, ok := a[k]; !ok && !isEmpty(vb) {
			return false
		}
	}
	return true
}

// isEmpty is true for null and empty maps and lists.
func isEmpty(v interface{}) bool {
	switch x := v.(type) {
	case nil:
		return true
	case map[string]interface{}:
		return len(x) == 0
	case []interface{}:
		return len(x) == 0
	}
	return false
}

func number(v interface{}) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	}
	return 0, false
}
