package e2e

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/propel-mc/propel/config/samples"
)

// applySample creates the objects of config/samples/<file> on the control
// plane, moved from namespace default to ns; cluster-scoped objects get
// "-<ns>" appended to their names, so that tests do not collide. It
// returns the objects as created.
func applySample(t *testing.T, file, ns string) []*unstructured.Unstructured {
	t.Helper()
	data, err := samples.FS.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatalf("decode %s: %v", file, err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		if obj.GetNamespace() != "" {
			obj.SetNamespace(ns)
		} else {
			obj.SetName(obj.GetName() + "-" + ns)
		}
		if err := env.Client.Create(context.Background(), obj); err != nil {
			t.Fatalf("create %s %s from %s: %v", obj.GetKind(), obj.GetName(), file, err)
		}
		out = append(out, obj)
	}
	return out
}
