package builtin

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Per-call cost of a built-in Lua interpreter (Kruise CloneSet) next to the
// native Go interpreter of the kind it mirrors (apps/v1 Deployment), for
// InterpretHealth and a two-member AggregateStatus:
//
//	go test -run '^$' -bench . -benchtime=2000x -count=3 ./internal/interpreter/resourceinterpreter/builtin/
func benchObjects(apiVersion, kind string) (*unstructured.Unstructured, []workv1alpha2.AggregatedStatusItem) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": "web", "namespace": "shop", "generation": int64(3)},
		"spec": map[string]any{"replicas": int64(3), "template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "nginx", "image": "nginx", "resources": map[string]any{"requests": map[string]any{"cpu": "100m"}}}},
		}}},
		"status": map[string]any{"observedGeneration": int64(3), "replicas": int64(3), "updatedReplicas": int64(3), "availableReplicas": int64(3), "readyReplicas": int64(3)},
	}}
	status := func(n int) *runtime.RawExtension {
		return &runtime.RawExtension{Raw: []byte(`{"generation":3,"observedGeneration":3,"resourceTemplateGeneration":3,"replicas":` +
			string(rune('0'+n)) + `,"readyReplicas":` + string(rune('0'+n)) + `,"updatedReplicas":` + string(rune('0'+n)) + `,"availableReplicas":` + string(rune('0'+n)) + `}`)}
	}
	items := []workv1alpha2.AggregatedStatusItem{
		{ClusterName: "member1", Status: status(2), Applied: true},
		{ClusterName: "member2", Status: status(1), Applied: true},
	}
	return obj, items
}

func benchLayers(b *testing.B) map[string]struct {
	l                layer.Layer
	apiVersion, kind string
} {
	b.Helper()
	return map[string]struct {
		l                layer.Layer
		apiVersion, kind string
	}{
		"lua-builtin-CloneSet": {New(customization.Options{}), "apps.kruise.io/v1alpha1", "CloneSet"},
		"go-native-Deployment": {native.New(), "apps/v1", "Deployment"},
	}
}

func BenchmarkInterpretHealth(b *testing.B) {
	ctx := context.Background()
	for name, c := range benchLayers(b) {
		obj, _ := benchObjects(c.apiVersion, c.kind)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				ok, err := c.l.InterpretHealth(ctx, obj)
				if err != nil || !ok {
					b.Fatal(ok, err)
				}
			}
		})
	}
}

func BenchmarkAggregateStatus(b *testing.B) {
	ctx := context.Background()
	for name, c := range benchLayers(b) {
		obj, items := benchObjects(c.apiVersion, c.kind)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				out, err := c.l.AggregateStatus(ctx, obj, items)
				if err != nil || out == nil {
					b.Fatal(err)
				}
			}
		})
	}
}
