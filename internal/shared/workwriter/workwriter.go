// Package workwriter is Karmada's Work writer: it turns the object one
// member cluster should run into a Work in that cluster's execution
// namespace, created or merged into the existing Work (labels and
// annotations merged, finalizers unioned, spec replaced) and written only
// when it changed. The binding controller and every controller that
// propagates objects of its own (quotas, services, namespaces) write Works
// through it.
package workwriter

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/google/uuid"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/rawjson"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// RBAC: Works are created and updated (read fresh on conflict).
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch;create;update

// Desired is the Work one target cluster should have.
type Desired struct {
	// Cluster is the member cluster; Namespace (its execution namespace)
	// and Name locate the Work.
	Cluster, Namespace, Name string
	// Labels and Annotations are merged into the Work's.
	Labels, Annotations map[string]string
	// Suspend and Preserve are spec.suspendDispatching and
	// spec.preserveResourcesOnDeletion.
	Suspend, Preserve bool
	// FlagsUnset leaves spec.suspendDispatching and
	// spec.preserveResourcesOnDeletion nil (Suspend and Preserve are
	// ignored), as Karmada's writer does for callers that pass neither
	// option (the namespace sync controller).
	FlagsUnset bool
	// Manifest is the object PrepareManifest prepared, without the Work's
	// permanent id and the managed-keys records (they depend on the
	// existing Work).
	Manifest *unstructured.Unstructured
	// Finalizers the Work must carry (unioned with the existing ones); nil
	// means the execution controller's, which every dispatched Work needs.
	// A collected Work (a member object reported back, never applied)
	// carries its collector's instead.
	Finalizers []string
	// Owned are annotation keys only this writer sets: an existing
	// Work's are dropped when Annotations lacks them and the Work is
	// written anyway.
	Owned []string
	// Controller, when set, is the Work's controller reference (replacing
	// an existing one), so that the Work is garbage collected with the
	// object it was written for.
	Controller *metav1.OwnerReference
}

// Key is the Work's namespace/name.
func (d *Desired) Key() string { return d.Namespace + "/" + d.Name }

// NewWork is the Work to create: a new permanent id (what Karmada's Work
// webhook assigns) and the execution controller's finalizer.
func (d *Desired) NewWork() (*workv1alpha1.Work, error) {
	id := uuid.NewString()
	labels := make(map[string]string, len(d.Labels)+1)
	for k, v := range d.Labels {
		labels[k] = v
	}
	labels[names.WorkPermanentIDLabel] = id
	annotations := make(map[string]string, len(d.Annotations))
	for k, v := range d.Annotations {
		annotations[k] = v
	}
	w := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{
		Namespace: d.Namespace, Name: d.Name, Labels: labels, Annotations: annotations,
		Finalizers: d.finalizers(),
	}}
	if d.Controller != nil {
		w.OwnerReferences = []metav1.OwnerReference{*d.Controller}
	}
	return w, d.setSpec(w, id)
}

func (d *Desired) setSpec(w *workv1alpha1.Work, id string) error {
	raw, err := encodeManifest(d.Manifest, id)
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	w.Spec = workv1alpha1.WorkSpec{
		Workload: workv1alpha1.WorkloadTemplate{Manifests: []workv1alpha1.Manifest{{RawExtension: runtime.RawExtension{Raw: raw}}}},
	}
	if !d.FlagsUnset {
		w.Spec.SuspendDispatching = ptr.To(d.Suspend)
		w.Spec.PreserveResourcesOnDeletion = ptr.To(d.Preserve)
	}
	return nil
}

// Merge returns existing updated as Karmada's Work writer would leave it
// (labels and annotations merged, finalizers the sorted union, spec
// replaced), and whether that differs from existing. Owned annotations
// that are no longer desired are dropped when the Work is written anyway.
func (d *Desired) Merge(existing *workv1alpha1.Work) (*workv1alpha1.Work, bool, error) {
	if !existing.DeletionTimestamp.IsZero() {
		return nil, false, fmt.Errorf("work %s/%s is being deleted", existing.Namespace, existing.Name)
	}
	updated := existing.DeepCopy()
	updated.Labels = mergeStrings(updated.Labels, d.Labels)
	id := updated.Labels[names.WorkPermanentIDLabel]
	if id == "" {
		id = uuid.NewString()
		updated.Labels[names.WorkPermanentIDLabel] = id
	}
	updated.Annotations = mergeStrings(updated.Annotations, d.Annotations)
	updated.Finalizers = sortedUnion(updated.Finalizers, d.finalizers()...)
	if d.Controller != nil {
		updated.OwnerReferences = withController(updated.OwnerReferences, *d.Controller)
	}
	if err := d.setSpec(updated, id); err != nil {
		return nil, false, err
	}
	if workEqual(existing, updated) {
		return nil, false, nil
	}
	for _, k := range d.Owned {
		if _, ok := d.Annotations[k]; !ok {
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

func (d *Desired) finalizers() []string {
	if d.Finalizers == nil {
		return []string{names.ExecutionControllerFinalizer}
	}
	return slices.Clone(d.Finalizers)
}

func sortedUnion(list []string, add ...string) []string {
	out := append(slices.Clone(list), add...)
	slices.Sort(out)
	return slices.Compact(out)
}

// withController replaces the controller reference in refs with ref, or
// appends ref when refs has none.
func withController(refs []metav1.OwnerReference, ref metav1.OwnerReference) []metav1.OwnerReference {
	out := slices.Clone(refs)
	for i := range out {
		if ptr.Deref(out[i].Controller, false) {
			out[i] = ref
			return out
		}
	}
	return append(out, ref)
}

// workEqual compares what the Work writer writes.
func workEqual(a, b *workv1alpha1.Work) bool {
	return equality.Semantic.DeepEqual(a.Labels, b.Labels) &&
		equality.Semantic.DeepEqual(a.Annotations, b.Annotations) &&
		equality.Semantic.DeepEqual(a.Finalizers, b.Finalizers) &&
		equality.Semantic.DeepEqual(a.OwnerReferences, b.OwnerReferences) &&
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
		if !rawjson.Equal(a[i].Raw, b[i].Raw) {
			return false
		}
	}
	return true
}

// Write creates the Work, or updates it when it differs from d, retrying
// on conflicts with a fresh read from reader. cached is the Work as the
// caller's cache has it (nil if absent). It reports whether it wrote.
func Write(ctx context.Context, c client.Client, reader client.Reader, d *Desired, cached *workv1alpha1.Work) (bool, error) {
	if cached == nil {
		w, err := d.NewWork()
		if err != nil {
			return false, err
		}
		err = c.Create(ctx, w)
		if !apierrors.IsAlreadyExists(err) {
			return err == nil, err
		}
	}
	written := false
	current := cached
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if current == nil {
			current = &workv1alpha1.Work{}
			if err := reader.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: d.Name}, current); err != nil {
				return err
			}
		}
		updated, changed, err := d.Merge(current)
		current = nil
		if err != nil || !changed {
			return err
		}
		written = true
		return c.Update(ctx, updated)
	})
	return written, err
}

// MetaMap returns obj's metadata.<field> map for in-place changes,
// creating it (and metadata) when missing or not a map.
func MetaMap(obj *unstructured.Unstructured, field string) map[string]interface{} {
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

// MergeInto sets every key of kv in m.
func MergeInto(m map[string]interface{}, kv map[string]string) {
	for k, v := range kv {
		m[k] = v
	}
}

// PrepareManifest adds what Karmada's Work writer adds to the object (the
// managed label; the template uid, the Work name and namespace
// annotations) and prunes it.
func PrepareManifest(obj *unstructured.Unstructured, workNamespace, workName string) error {
	MetaMap(obj, "labels")[names.ManagedLabel] = names.TrueValue
	annotations := MetaMap(obj, "annotations")
	annotations[names.ResourceTemplateUIDAnnotation] = string(obj.GetUID())
	annotations[names.WorkNameAnnotation] = workName
	annotations[names.WorkNamespaceAnnotation] = workNamespace
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
	annotations := MetaMap(obj, "annotations")
	annotations[names.ManagedAnnotationsAnnotation] = managedKeys(annotations, names.ManagedAnnotationsAnnotation, names.ManagedLabelsAnnotation)
	labels := MetaMap(obj, "labels")
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

// Cached returns the Work d names as c (normally the manager's cache) has
// it, nil when absent.
func Cached(ctx context.Context, c client.Reader, d *Desired) (*workv1alpha1.Work, error) {
	cached := &workv1alpha1.Work{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: d.Name}, cached); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("get Work %s: %w", d.Key(), err)
	}
	return cached, nil
}

// WriteFromCache is Write with the Work as c's cache has it.
func WriteFromCache(ctx context.Context, c client.Client, reader client.Reader, d *Desired) (bool, error) {
	cached, err := Cached(ctx, c, d)
	if err != nil {
		return false, err
	}
	return Write(ctx, c, reader, d, cached)
}
