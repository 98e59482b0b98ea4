package workwriter

import (
	"context"
	"encoding/json"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// writes counts the writer's creates and updates; conflicts makes that
// many updates fail with a conflict first.
type writes struct{ creates, updates, conflicts int }

func fakeClient(w *writes, objs ...client.Object) client.WithWatch {
	return fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(objs...).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			w.creates++
			return c.Create(ctx, o, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.UpdateOption) error {
			w.updates++
			if w.conflicts > 0 {
				w.conflicts--
				return apierrors.NewConflict(schema.GroupResource{Group: "work.karmada.io", Resource: "works"}, o.GetName(), nil)
			}
			return c.Update(ctx, o, opts...)
		},
	}).Build()
}

func desired(t *testing.T) *Desired {
	t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]interface{}{"name": "cm", "namespace": "app", "uid": "cm-uid", "resourceVersion": "7"},
		"data":     map[string]interface{}{"k": "v"},
	}}
	d := &Desired{
		Cluster: "m1", Namespace: "karmada-es-m1", Name: "cm-work",
		Labels:      map[string]string{"l": "1"},
		Annotations: map[string]string{"owned": "x"},
		Owned:       []string{"owned"},
		Manifest:    obj,
	}
	if err := PrepareManifest(obj, d.Namespace, d.Name); err != nil {
		t.Fatal(err)
	}
	return d
}

func get(t *testing.T, c client.Client) *workv1alpha1.Work {
	t.Helper()
	w := &workv1alpha1.Work{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "karmada-es-m1", Name: "cm-work"}, w); err != nil {
		t.Fatal(err)
	}
	return w
}

func manifestLabels(t *testing.T, w *workv1alpha1.Work) map[string]interface{} {
	t.Helper()
	m := map[string]interface{}{}
	if err := json.Unmarshal(w.Spec.Workload.Manifests[0].Raw, &m); err != nil {
		t.Fatal(err)
	}
	labels, _ := m["metadata"].(map[string]interface{})["labels"].(map[string]interface{})
	return labels
}

// A new Work gets a permanent id (on the Work and its manifest), the
// execution controller's finalizer and both spec flags; writing it again
// unchanged does not write.
func TestWriteCreatesOnceWithPermanentID(t *testing.T) {
	w := &writes{}
	c := fakeClient(w)
	ctx := context.Background()
	if written, err := Write(ctx, c, c, desired(t), nil); err != nil || !written || w.creates != 1 {
		t.Fatalf("create: written %v, %d creates, %v", written, w.creates, err)
	}
	work := get(t, c)
	id := work.Labels[names.WorkPermanentIDLabel]
	if id == "" || manifestLabels(t, work)[names.WorkPermanentIDLabel] != id {
		t.Fatalf("permanent id %q, manifest labels %v", id, manifestLabels(t, work))
	}
	if len(work.Finalizers) != 1 || work.Finalizers[0] != names.ExecutionControllerFinalizer ||
		work.Spec.SuspendDispatching == nil || work.Spec.PreserveResourcesOnDeletion == nil || work.Labels["l"] != "1" {
		t.Fatalf("work %+v", work.ObjectMeta)
	}
	if written, err := Write(ctx, c, c, desired(t), work); err != nil || written || w.updates != 0 {
		t.Fatalf("unchanged: written %v, %d updates, %v", written, w.updates, err)
	}
}

// An existing Work keeps its permanent id and foreign labels,
// annotations and finalizers; one without an id gets one; an owned
// annotation no longer desired is dropped.
func TestWriteMergesExisting(t *testing.T) {
	existing := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{
		Namespace: "karmada-es-m1", Name: "cm-work",
		Labels:      map[string]string{"foreign": "f"},
		Annotations: map[string]string{"owned": "old", "other": "o"},
		Finalizers:  []string{"z/foreign"},
	}}
	w := &writes{}
	c := fakeClient(w, existing)
	ctx := context.Background()
	d := desired(t)
	d.Annotations = nil
	if written, err := Write(ctx, c, c, d, get(t, c)); err != nil || !written || w.updates != 1 || w.creates != 0 {
		t.Fatalf("update: written %v, %d updates %d creates, %v", written, w.updates, w.creates, err)
	}
	work := get(t, c)
	id := work.Labels[names.WorkPermanentIDLabel]
	if id == "" || work.Labels["foreign"] != "f" || work.Labels["l"] != "1" || manifestLabels(t, work)[names.WorkPermanentIDLabel] != id {
		t.Errorf("labels %v, manifest labels %v", work.Labels, manifestLabels(t, work))
	}
	if _, ok := work.Annotations["owned"]; ok || work.Annotations["other"] != "o" {
		t.Errorf("annotations %v", work.Annotations)
	}
	if len(work.Finalizers) != 2 || work.Finalizers[0] != names.ExecutionControllerFinalizer || work.Finalizers[1] != "z/foreign" {
		t.Errorf("finalizers %v", work.Finalizers)
	}
	// The id, once there, is kept.
	d = desired(t)
	d.Labels["l"] = "2"
	if _, err := Write(ctx, c, c, d, work); err != nil {
		t.Fatal(err)
	}
	if got := get(t, c).Labels[names.WorkPermanentIDLabel]; got != id {
		t.Errorf("permanent id changed from %q to %q", id, got)
	}
}

// A conflict is retried with a fresh read; a create that finds the Work
// already there merges into it; a Work being deleted is not written.
func TestWriteConflictsAndRaces(t *testing.T) {
	existing := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{
		Namespace: "karmada-es-m1", Name: "cm-work", Labels: map[string]string{names.WorkPermanentIDLabel: "w-1"},
	}}
	w := &writes{conflicts: 1}
	c := fakeClient(w, existing)
	ctx := context.Background()
	// The cache has not seen the Work: create fails with AlreadyExists.
	if written, err := Write(ctx, c, c, desired(t), nil); err != nil || !written || w.creates != 1 || w.updates != 2 {
		t.Fatalf("written %v, %d creates %d updates, %v", written, w.creates, w.updates, err)
	}
	if got := get(t, c).Labels[names.WorkPermanentIDLabel]; got != "w-1" {
		t.Errorf("permanent id %q, want w-1", got)
	}

	deleting := existing.DeepCopy()
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	if _, _, err := desired(t).Merge(deleting); err == nil {
		t.Error("a Work being deleted was merged")
	}
}

// The controller reference replaces an existing one; FlagsUnset leaves
// both spec flags nil.
func TestWriteControllerAndFlagsUnset(t *testing.T) {
	old := metav1.OwnerReference{APIVersion: "v1", Kind: "Namespace", Name: "app", UID: "old", Controller: ptr.To(true)}
	other := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "x", UID: "x"}
	existing := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{
		Namespace: "karmada-es-m1", Name: "cm-work", OwnerReferences: []metav1.OwnerReference{other, old},
	}}
	c := fakeClient(&writes{}, existing)
	d := desired(t)
	d.FlagsUnset = true
	d.Controller = &metav1.OwnerReference{APIVersion: "v1", Kind: "Namespace", Name: "app", UID: "new", Controller: ptr.To(true)}
	if _, err := Write(context.Background(), c, c, d, get(t, c)); err != nil {
		t.Fatal(err)
	}
	work := get(t, c)
	if len(work.OwnerReferences) != 2 || work.OwnerReferences[0].UID != "x" || work.OwnerReferences[1].UID != "new" {
		t.Errorf("owner references %+v", work.OwnerReferences)
	}
	if work.Spec.SuspendDispatching != nil || work.Spec.PreserveResourcesOnDeletion != nil {
		t.Errorf("spec flags set: %v %v", work.Spec.SuspendDispatching, work.Spec.PreserveResourcesOnDeletion)
	}
	fresh, err := d.NewWork()
	if err != nil || len(fresh.OwnerReferences) != 1 || fresh.OwnerReferences[0].UID != "new" {
		t.Errorf("new work owner references %+v, %v", fresh.OwnerReferences, err)
	}
}

// TestWriteFromCache: the Work is read from the client itself, so a
// second write of the same Desired writes nothing, and a changed one
// updates the existing Work rather than failing to create it.
func TestWriteFromCache(t *testing.T) {
	w := &writes{}
	c := fakeClient(w)
	ctx := context.Background()
	d := desired(t)
	if cached, err := Cached(ctx, c, d); cached != nil || err != nil {
		t.Fatalf("before the write: cached %v, %v", cached, err)
	}
	for i, want := range []bool{true, false} {
		if written, err := WriteFromCache(ctx, c, c, desired(t)); err != nil || written != want {
			t.Fatalf("write %d: written %v, %v; want %v", i, written, err, want)
		}
	}
	changed := desired(t)
	changed.Labels["l"] = "2"
	if written, err := WriteFromCache(ctx, c, c, changed); err != nil || !written || w.creates != 1 || w.updates != 1 {
		t.Fatalf("changed: written %v, %d creates, %d updates, %v", written, w.creates, w.updates, err)
	}
	if get(t, c).Labels["l"] != "2" {
		t.Error("the label change was not written")
	}
}
