package execution

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// errNotManaged marks a refused update of an object Propel does not own.
var errNotManaged = errors.New("object not managed by Karmada")

// conflictError is Karmada's refusal to take over an existing object.
type conflictError struct {
	kind, namespace, name, cluster string
}

func (e *conflictError) Error() string {
	return fmt.Sprintf(ConflictResolutionRefusedMsgFormat, e.kind, e.namespace, e.name, e.cluster, names.ConflictResolutionAnnotation)
}

func (e *conflictError) Unwrap() error { return errNotManaged }

// checkOwnership allows an update when the member object is managed
// (karmada.io/managed=true) or the manifest asks to overwrite; "abort" and
// an unset strategy refuse alike.
func checkOwnership(cluster string, desired, observed *unstructured.Unstructured) error {
	if label(observed, names.ManagedLabel) == names.TrueValue ||
		annotation(desired, names.ConflictResolutionAnnotation) == names.ConflictResolutionOverwrite {
		return nil
	}
	return &conflictError{kind: observed.GetKind(), namespace: observed.GetNamespace(), name: observed.GetName(), cluster: cluster}
}

func permanentID(work *workv1alpha1.Work) string {
	return work.Labels[names.WorkPermanentIDLabel]
}

// ensureOwnershipMetadata makes sure the manifest carries what identifies
// an applied object as Propel's: karmada.io/managed=true, the Work
// back-reference, the Work's permanent id and its conflict resolution.
// The binding controller already writes all of these; a hand-made Work
// gets them here. Keys added are also added to the managed-labels and
// managed-annotations lists when the manifest has them.
func ensureOwnershipMetadata(obj *unstructured.Unstructured, work *workv1alpha1.Work) {
	if hasOwnershipMetadata(obj, work) {
		return
	}
	labels, annotations := obj.GetLabels(), obj.GetAnnotations()
	addedLabels := setMissing(&labels, names.ManagedLabel, names.TrueValue)
	if id := permanentID(work); id != "" {
		addedLabels = setMissing(&labels, names.WorkPermanentIDLabel, id) || addedLabels
	}
	addedAnn := setMissing(&annotations, names.WorkNamespaceAnnotation, work.Namespace)
	addedAnn = setMissing(&annotations, names.WorkNameAnnotation, work.Name) || addedAnn
	if cr := work.Annotations[names.ConflictResolutionAnnotation]; cr != "" {
		addedAnn = setMissing(&annotations, names.ConflictResolutionAnnotation, cr) || addedAnn
	}
	if addedLabels {
		obj.SetLabels(labels)
		refreshKeyList(annotations, names.ManagedLabelsAnnotation, labels)
	}
	if addedAnn || addedLabels {
		refreshKeyList(annotations, names.ManagedAnnotationsAnnotation, annotations)
		obj.SetAnnotations(annotations)
	}
}

// hasOwnershipMetadata is the allocation-free check that the binding
// controller already wrote every key ensureOwnershipMetadata adds.
func hasOwnershipMetadata(obj *unstructured.Unstructured, work *workv1alpha1.Work) bool {
	return present(obj, "labels", names.ManagedLabel) &&
		(permanentID(work) == "" || present(obj, "labels", names.WorkPermanentIDLabel)) &&
		present(obj, "annotations", names.WorkNamespaceAnnotation) &&
		present(obj, "annotations", names.WorkNameAnnotation) &&
		(work.Annotations[names.ConflictResolutionAnnotation] == "" || present(obj, "annotations", names.ConflictResolutionAnnotation))
}

func present(obj *unstructured.Unstructured, field, key string) bool {
	_, ok := metaValue(obj, field, key)
	return ok
}

// metaValue reads metadata.<field>[key] without copying the map.
func metaValue(obj *unstructured.Unstructured, field, key string) (string, bool) {
	m, _ := obj.Object["metadata"].(map[string]interface{})
	f, _ := m[field].(map[string]interface{})
	v, ok := f[key].(string)
	return v, ok
}

func label(obj *unstructured.Unstructured, key string) string {
	v, _ := metaValue(obj, "labels", key)
	return v
}

func annotation(obj *unstructured.Unstructured, key string) string {
	v, _ := metaValue(obj, "annotations", key)
	return v
}

func setMissing(m *map[string]string, key, value string) bool {
	if _, ok := (*m)[key]; ok {
		return false
	}
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[key] = value
	return true
}

// refreshKeyList rewrites the key list annotation listKey (when present)
// as the sorted keys of m.
func refreshKeyList(annotations map[string]string, listKey string, m map[string]string) {
	if _, ok := annotations[listKey]; !ok {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	annotations[listKey] = strings.Join(keys, ",")
}
