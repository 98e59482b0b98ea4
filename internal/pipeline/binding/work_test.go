package binding

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/propel-mc/propel/internal/pipeline/binding/overrides"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/workwriter"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// desired renders the member1 Work of the worked example.
func desired(t *testing.T, mutate func(*workv1alpha2.ResourceBinding)) *workwriter.Desired {
	t.Helper()
	rb := exampleBinding()
	if mutate != nil {
		mutate(rb)
	}
	b := rbKind.wrap(rb)
	rd, err := newRenderer(newInterpreter(), b, exampleTemplate(t), overrides.NewSet(nil, nil), b.targets())
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := rd.render(context.Background(), b.targets()[0], memberCluster("member1"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// stored is w as the API server returns it: re-encoded manifest, server
// metadata, a status.
func stored(t *testing.T, w *workv1alpha1.Work) *workv1alpha1.Work {
	t.Helper()
	s := w.DeepCopy()
	var m map[string]interface{}
	if err := json.Unmarshal(s.Spec.Workload.Manifests[0].Raw, &m); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.MarshalIndent(m, "", "  ")
	s.Spec.Workload.Manifests[0].Raw = raw
	s.ResourceVersion, s.UID, s.Generation = "12", "work-uid", 1
	s.Status.Conditions = []metav1.Condition{{Type: "Applied", Status: "True"}}
	return s
}

func TestMergeUnchangedWorkWritesNothing(t *testing.T) {
	d := desired(t, nil)
	created, err := d.NewWork()
	if err != nil {
		t.Fatal(err)
	}
	existing := stored(t, created)
	// Other writers' metadata is kept and does not cause a write.
	existing.Labels["team"] = "x"
	existing.Annotations["note"] = "y"
	if _, changed, err := desired(t, nil).Merge(existing); err != nil || changed {
		t.Fatalf("merge of an unchanged Work: changed %v, %v", changed, err)
	}
}

func TestMergeUpdates(t *testing.T) {
	created, _ := desired(t, nil).NewWork()
	existing := stored(t, created)
	existing.Annotations[names.AppliedOverridesAnnotation] = `[{"policyName":"gone","overriders":{}}]`
	existing.Finalizers = []string{"z.io/other", names.ExecutionControllerFinalizer}
	existing.Labels["team"] = "x"

	// A stale applied-overrides annotation alone is no reason to write...
	d := desired(t, nil)
	existing.Finalizers = []string{names.ExecutionControllerFinalizer, "z.io/other"}
	if _, changed, _ := d.Merge(existing); changed {
		t.Fatal("a stale applied-overrides annotation caused a write")
	}
	// ...but it is dropped when the Work is written anyway.
	existing.Finalizers = []string{"z.io/other", names.ExecutionControllerFinalizer}
	d = desired(t, func(rb *workv1alpha2.ResourceBinding) { rb.Spec.Clusters[0].Replicas = 4 })
	updated, changed, err := d.Merge(existing)
	if err != nil || !changed {
		t.Fatalf("changed %v, %v", changed, err)
	}
	if _, ok := updated.Annotations[names.AppliedOverridesAnnotation]; ok {
		t.Error("stale applied-overrides kept")
	}
	if strings.Join(updated.Finalizers, ",") != names.ExecutionControllerFinalizer+",z.io/other" {
		t.Errorf("finalizers %v, want the sorted union", updated.Finalizers)
	}
	if updated.Labels["team"] != "x" || updated.Labels[names.WorkPermanentIDLabel] != created.Labels[names.WorkPermanentIDLabel] {
		t.Errorf("labels %v", updated.Labels)
	}
	m := manifestOf(t, updated)
	if m.GetLabels()[names.WorkPermanentIDLabel] != created.Labels[names.WorkPermanentIDLabel] {
		t.Errorf("manifest work id %v", m.GetLabels())
	}
	if r := m.Object["spec"].(map[string]interface{})["replicas"]; r != int64(4) {
		t.Errorf("replicas %v", r)
	}
}

func TestMergeAssignsMissingWorkID(t *testing.T) {
	created, _ := desired(t, nil).NewWork()
	existing := stored(t, created)
	delete(existing.Labels, names.WorkPermanentIDLabel)
	updated, changed, err := desired(t, nil).Merge(existing)
	if err != nil || !changed {
		t.Fatalf("changed %v, %v", changed, err)
	}
	id := updated.Labels[names.WorkPermanentIDLabel]
	if id == "" || manifestOf(t, updated).GetLabels()[names.WorkPermanentIDLabel] != id {
		t.Errorf("work id %q, manifest labels %v", id, manifestOf(t, updated).GetLabels())
	}
}

func TestMergeTerminatingWorkFails(t *testing.T) {
	created, _ := desired(t, nil).NewWork()
	existing := stored(t, created)
	now := metav1.Now()
	existing.DeletionTimestamp = &now
	if _, _, err := desired(t, nil).Merge(existing); err == nil || !strings.Contains(err.Error(), "being deleted") {
		t.Fatalf("merge into a terminating Work: %v", err)
	}
}
