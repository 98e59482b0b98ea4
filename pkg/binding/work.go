package binding

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/uuid"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/pkg/names"
)

// desiredWork is the Work one target cluster should have.
type desiredWork struct {
	cluster     string
	namespace   string
	name        string
	labels      map[string]string
	annotations map[string]string
	suspend     bool
	preserve    bool
	// manifest is the prepared object, without the Work's permanent id and
	// the managed-keys records (they depend on the existing Work).
	manifest *unstructured.Unstructured
}

func (d *desiredWork) key() string { return d.namespace + "/" + d.name }

// newWork is the Work to create: a new permanent id (what Karmada's Work
// webhook assigns) and the execution controller's finalizer.
func (d *desiredWork) newWork() (*workv1alpha1.Work, error) {
	id := uuid.NewString()
	labels := make(map[string]string, len(d.labels)+1)
	for k, v := range d.labels {
		labels[k] = v
	}
	labels[names.WorkPermanentIDLabel] = id
	annotations := make(map[string]string, len(d.annotations))
	for k, v := range d.annotations {
		annotations[k] = v
	}
	w := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{
		Namespace: d.namespace, Name: d.name, Labels: labels, Annotations: annotations,
		Finalizers: []string{names.ExecutionControllerFinalizer},
	}}
	return w, d.setSpec(w, id)
}

func (d *desiredWork) setSpec(w *workv1alpha1.Work, id string) error {
	raw, err := encodeManifest(d.manifest, id)
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	w.Spec = workv1alpha1.WorkSpec{
		Workload:                    workv1alpha1.WorkloadTemplate{Manifests: []workv1alpha1.Manifest{{RawExtension: runtime.RawExtension{Raw: raw}}}},
		SuspendDispatching:          ptr.To(d.suspend),
		PreserveResourcesOnDeletion: ptr.To(d.preserve),
	}
	return nil
}

// appliedOverrideKeys are Work annotations a binding controller writes
// only when overrides applied.
var appliedOverrideKeys = []string{names.AppliedClusterOverridesAnnotation, names.AppliedOverridesAnnotation}

// merge returns existing updated as Karmada's Work writer would leave it
// (labels and annotations merged, finalizers the sorted union, spec
// replaced), and whether that differs from existing. Applied-overrides
// annotations of overrides that no longer apply are dropped when the Work
// is written anyway.
func (d *desiredWork) merge(existing *workv1alpha1.Work) (*workv1alpha1.Work, bool, error) {
	if !existing.DeletionTimestamp.IsZero() {
		return nil, false, fmt.Errorf("work %s/%s is being deleted", existing.Namespace, existing.Name)
	}
	updated := existing.DeepCopy()
	updated.Labels = mergeStrings(updated.Labels, d.labels)
	id := updated.Labels[names.WorkPermanentIDLabel]
	if id == "" {
		id = uuid.NewString()
		updated.Labels[names.WorkPermanentIDLabel] = id
	}
	updated.Annotations = mergeStrings(updated.Annotations, d.annotations)
	updated.Finalizers = sortedUnion(updated.Finalizers, names.ExecutionControllerFinalizer)
	if err := d.setSpec(updated, id); err != nil {
		return nil, false, err
	}
	if workEqual(existing, updated) {
		return nil, false, nil
	}
	for _, k := range appliedOverrideKeys {
		if _, ok := d.annotations[k]; !ok {
			delete(updated.Annotations, k)
		}
	}
	return updated, true, nil
}

func mergeStrings(into, from map[string]string) map[string]string {
	if into == nil {
		into = make(map[string]string, len(from))
	}
	for k, v := range from {
		into[k] = v
	}
	return into
}

func sortedUnion(list []string, add string) []string {
	out := slices.Clone(list)
	if !slices.Contains(out, add) {
		out = append(out, add)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// workEqual compares what the binding controller writes.
func workEqual(a, b *workv1alpha1.Work) bool {
	return equality.Semantic.DeepEqual(a.Labels, b.Labels) &&
		equality.Semantic.DeepEqual(a.Annotations, b.Annotations) &&
		equality.Semantic.DeepEqual(a.Finalizers, b.Finalizers) &&
		ptr.Equal(a.Spec.SuspendDispatching, b.Spec.SuspendDispatching) &&
		ptr.Equal(a.Spec.PreserveResourcesOnDeletion, b.Spec.PreserveResourcesOnDeletion) &&
		manifestsEqual(a.Spec.Workload.Manifests, b.Spec.Workload.Manifests)
}

// manifestsEqual compares manifests as JSON values: the API server may
// re-encode what it stores.
func manifestsEqual(a, b []workv1alpha1.Manifest) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !jsonEqual(a[i].Raw, b[i].Raw) {
			return false
		}
	}
	return true
}

func jsonEqual(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb interface{}
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
