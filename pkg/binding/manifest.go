package binding

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/pkg/resourceinterpreter/native"
)

// metaMap returns obj's metadata.<field> map for in-place changes,
// creating it (and metadata) when missing or not a map.
func metaMap(obj *unstructured.Unstructured, field string) map[string]interface{} {
	meta, ok := obj.Object["metadata"].(map[string]interface{})
	if !ok {
		meta = map[string]interface{}{}
		obj.Object["metadata"] = meta
	}
	m, ok := meta[field].(map[string]interface{})
	if !ok {
		m = map[string]interface{}{}
		meta[field] = m
	}
	return m
}

func mergeInto(m map[string]interface{}, kv map[string]string) {
	for k, v := range kv {
		m[k] = v
	}
}

// prepareManifest adds what Karmada's Work writer adds to the object (the
// managed label; the template uid, the Work name and namespace and the
// conflict resolution annotations) and prunes it.
func prepareManifest(obj *unstructured.Unstructured, workNamespace, workName, conflict string) error {
	metaMap(obj, "labels")[names.ManagedLabel] = names.TrueValue
	annotations := metaMap(obj, "annotations")
	annotations[names.ResourceTemplateUIDAnnotation] = string(obj.GetUID())
	annotations[names.WorkNameAnnotation] = workName
	annotations[names.WorkNamespaceAnnotation] = workNamespace
	annotations[names.ConflictResolutionAnnotation] = conflict
	if err := native.Prune(obj, native.RemoveJobTTLSeconds); err != nil {
		return fmt.Errorf("prune manifest: %w", err)
	}
	return nil
}

// encodeManifest finishes the manifest as the Work writer and the Work
// webhook leave it: the managed-annotations record, the Work's permanent
// id label (when known), the managed-labels record; then encodes it. It is
// idempotent for a given id.
func encodeManifest(obj *unstructured.Unstructured, workID string) ([]byte, error) {
	annotations := metaMap(obj, "annotations")
	annotations[names.ManagedAnnotationsAnnotation] = managedKeys(annotations, names.ManagedAnnotationsAnnotation, names.ManagedLabelsAnnotation)
	labels := metaMap(obj, "labels")
	if workID != "" {
		labels[names.WorkPermanentIDLabel] = workID
	}
	annotations[names.ManagedLabelsAnnotation] = managedKeys(labels)
	return json.Marshal(obj.Object)
}

// managedKeys is the sorted, comma-joined list of the keys of m plus
// always (without duplicates).
func managedKeys(m map[string]interface{}, always ...string) string {
	keys := make([]string, 0, len(m)+len(always))
	for k := range m {
		keys = append(keys, k)
	}
	for _, k := range always {
		if _, ok := m[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}
