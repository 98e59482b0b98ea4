package native

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// toTyped converts a whole object into a typed Kubernetes struct. Only the
// Pod answers that Karmada gives normalized use it (retainPod, aggregatePod
// without items); every other handler reads single fields.
func toTyped(obj *unstructured.Unstructured, into any) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, into)
}

// toUnstructured converts a typed object back. The result is normalized:
// unknown fields are gone and serializable zero values appear.
func toUnstructured(typed any) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// fromNested converts the object at path (a status, never a whole object)
// into a typed struct, leaving it at its zero value when the path is
// absent or null. Handlers of the less common kinds read statuses this
// way; the workload kinds read single fields (see fields.go).
func fromNested(obj *unstructured.Unstructured, into any, path ...string) error {
	_, err := nestedTyped(obj, into, path...)
	return err
}

// nestedTyped is fromNested also reporting whether the path was present.
func nestedTyped(obj *unstructured.Unstructured, into any, path ...string) (bool, error) {
	v, found, err := unstructured.NestedFieldNoCopy(obj.Object, path...)
	if err != nil || !found || v == nil {
		return found && v != nil, err
	}
	m, ok := v.(map[string]interface{})
	if !ok {
		return true, fmt.Errorf(".%s is of type %T, expected an object", strings.Join(path, "."), v)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, into); err != nil {
		return true, fmt.Errorf(".%s: %w", strings.Join(path, "."), err)
	}
	return true, nil
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

// rawJSON marshals a reflected status.
func rawJSON(v any) (*runtime.RawExtension, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &runtime.RawExtension{Raw: raw}, nil
}

// objectKey is "<namespace>/<name>", or the name of a cluster-scoped object.
func objectKey(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

// describe names an object in errors: "Deployment default/nginx".
func describe(obj *unstructured.Unstructured) string {
	return obj.GetKind() + " " + objectKey(obj)
}
