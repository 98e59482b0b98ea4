package native

import (
	"context"
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

var ctx = context.Background()

// obj parses a YAML manifest the way objects arrive from the API server
// (integers as int64).
func obj(t testing.TB, manifest string) *unstructured.Unstructured {
	t.Helper()
	raw, err := yaml.YAMLToJSON([]byte(manifest))
	if err != nil {
		t.Fatalf("yaml: %v", err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		t.Fatalf("decode: %v\n%s", err, raw)
	}
	return u
}

// asJSON renders any value as compact JSON for comparisons.
func asJSON(t testing.TB, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(raw)
}

// yamlJSON converts a YAML snippet to compact, key-sorted JSON.
func yamlJSON(t testing.TB, snippet string) string {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(snippet), &v); err != nil {
		t.Fatalf("yaml: %v", err)
	}
	return asJSON(t, v)
}

// nested returns the value at path as compact JSON ("null" when absent).
func nested(t testing.TB, u *unstructured.Unstructured, path ...string) string {
	t.Helper()
	v, _, err := unstructured.NestedFieldNoCopy(u.Object, path...)
	if err != nil {
		t.Fatalf("path %v: %v", path, err)
	}
	return normalizeJSON(t, asJSON(t, v))
}

// normalizeJSON re-encodes JSON through a generic value so that numbers
// and key order compare equal.
func normalizeJSON(t testing.TB, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("json %q: %v", s, err)
	}
	return asJSON(t, v)
}

// item builds an aggregated status item from a YAML status (empty: nil).
func item(t testing.TB, cluster, status string) workv1alpha2.AggregatedStatusItem {
	t.Helper()
	it := workv1alpha2.AggregatedStatusItem{ClusterName: cluster, Applied: true, Health: workv1alpha2.ResourceHealthy}
	if status != "" {
		raw, err := yaml.YAMLToJSON([]byte(status))
		if err != nil {
			t.Fatalf("yaml: %v", err)
		}
		it.Status = &runtime.RawExtension{Raw: raw}
	}
	return it
}

func unstructuredNested(u *unstructured.Unstructured, path ...string) (any, bool, error) {
	return unstructured.NestedFieldNoCopy(u.Object, path...)
}

func rawString(r *runtime.RawExtension) string {
	if r == nil {
		return "<nil>"
	}
	return string(r.Raw)
}
