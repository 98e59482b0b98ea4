package native_test

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Unchanged since the typed implementation: production code serves as
// the reference (export_test.go).
var (
	toTyped        = native.ToTyped
	fromNested     = native.FromNested
	nestedTyped    = native.NestedTyped
	toUnstructured = native.ToUnstructured
	rawJSON        = native.RawJSON
	describe       = native.Describe
)

// rebuild converts obj to T, lets set change it, and returns the normalized
// result.
func rebuild[T any](obj *unstructured.Unstructured, set func(*T)) (*unstructured.Unstructured, error) {
	var typed T
	if err := toTyped(obj, &typed); err != nil {
		return nil, err
	}
	set(&typed)
	return toUnstructured(&typed)
}

// decodeEach decodes the status of every item that has one into a fresh M
// and passes it to fn. Items without a status are skipped.
func decodeEach[M any](items []workv1alpha2.AggregatedStatusItem, fn func(item *workv1alpha2.AggregatedStatusItem, member *M)) error {
	for i := range items {
		item := &items[i]
		if item.Status == nil {
			continue
		}
		var member M
		if err := json.Unmarshal(item.Status.Raw, &member); err != nil {
			return fmt.Errorf("status from cluster %s: %w", item.ClusterName, err)
		}
		fn(item, &member)
	}
	return nil
}
