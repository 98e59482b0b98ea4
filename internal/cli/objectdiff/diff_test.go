package objectdiff

import (
	"reflect"
	"testing"
)

func TestValues(t *testing.T) {
	old := map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app": "web", "team.io/x": "a"}},
		"spec":     map[string]any{"replicas": int64(2), "ports": []any{1, 2}},
	}
	new := map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app": "web", "env": "prod"}},
		"spec":     map[string]any{"replicas": float64(3), "ports": []any{1, 2, 3}},
	}
	got, err := Values(old, new)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{
		{Path: `metadata.labels."team.io/x"`, Old: "a"},
		{Path: "metadata.labels.env", New: "prod"},
		{Path: "spec.ports", Old: []any{float64(1), float64(2)}, New: []any{float64(1), float64(2), float64(3)}},
		{Path: "spec.replicas", Old: float64(2), New: float64(3)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if same, _ := Values(int64(1), float64(1)); len(same) != 0 {
		t.Fatalf("1 and 1.0 differ: %v", same)
	}
	if c, _ := Values(true, false); len(c) != 1 || c[0].String() != ".: true -> false" {
		t.Fatalf("scalar change = %v", c)
	}
}
