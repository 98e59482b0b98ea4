package execution

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/propel-mc/propel/internal/shared/names"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// retain returns desired with the member-owned parts of observed kept:
// the base rules (resourceVersion, finalizers, ownerReferences, labels and
// annotations the member added), then the interpreter's Retain hook for
// the kind, if any. desired is changed in place; observed is not.
func (r *Reconciler) retain(ctx context.Context, desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	baseRetain(desired, observed)
	if !r.interp.HookEnabled(desired.GroupVersionKind(), configv1alpha1.InterpreterOperationRetain) {
		return desired, nil
	}
	out, err := r.interp.Retain(ctx, desired, observed)
	if err != nil {
		return nil, fmt.Errorf("retain: %w", err)
	}
	return out, nil
}

// baseRetain keeps, whatever the kind, what the member cluster owns: the
// resourceVersion (optimistic concurrency), finalizers and ownerReferences,
// and every label and annotation of observed that desired does not set,
// unless Propel put it there earlier and the template dropped it since
// (it is listed in observed's managed-labels/-annotations but absent from
// desired).
func baseRetain(desired, observed *unstructured.Unstructured) {
	dm := metadataOf(desired.Object, true)
	om := metadataOf(observed.Object, false)
	dm["resourceVersion"] = om["resourceVersion"]
	copyOrDelete(dm, om, "finalizers")
	copyOrDelete(dm, om, "ownerReferences")
	retainKeys(dm, om, "labels", annotation(observed, names.ManagedLabelsAnnotation))
	retainKeys(dm, om, "annotations", annotation(observed, names.ManagedAnnotationsAnnotation))
}

func metadataOf(obj map[string]interface{}, create bool) map[string]interface{} {
	m, ok := obj["metadata"].(map[string]interface{})
	if !ok && create {
		m = map[string]interface{}{}
		obj["metadata"] = m
	}
	return m
}

func copyOrDelete(dst, src map[string]interface{}, field string) {
	if v, ok := src[field]; ok && !isEmpty(v) {
		dst[field] = runtime.DeepCopyJSONValue(v)
		return
	}
	delete(dst, field)
}

// retainKeys adds to desired's map field (labels or annotations) the
// observed entries it lacks, except those listed in managedList (Propel's
// own keys from the previous apply) that desired no longer has.
func retainKeys(desired, observed map[string]interface{}, field, managedList string) {
	have, _ := observed[field].(map[string]interface{})
	if len(have) == 0 {
		return
	}
	want, _ := desired[field].(map[string]interface{})
	for k, v := range have {
		if _, ok := want[k]; ok || listed(managedList, k) {
			continue
		}
		if want == nil {
			want = make(map[string]interface{}, len(have))
			desired[field] = want
		}
		want[k] = v
	}
}

// listed reports whether key is an element of the comma-separated list.
func listed(list, key string) bool {
	for list != "" {
		var item string
		item, list, _ = strings.Cut(list, ",")
		if item == key {
			return true
		}
	}
	return false
}
