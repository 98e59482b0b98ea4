package binding

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/assign"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func jobTemplate(t *testing.T, uid string, completions string) *unstructured.Unstructured {
	return mustObject(t, fmt.Sprintf(`
apiVersion: batch/v1
kind: Job
metadata: {name: pi, namespace: default, uid: %q}
spec:
  parallelism: 5
  %s
  ttlSecondsAfterFinished: 100
  template:
    spec:
      restartPolicy: Never
      containers: [{name: pi, image: perl}]
`, uid, completions))
}

func jobBinding(replicaType policyv1alpha1.ReplicaSchedulingType, clusters ...workv1alpha2.TargetCluster) *binding {
	rb := exampleBinding()
	rb.Name = "pi-job"
	rb.Spec.Resource = workv1alpha2.ObjectReference{APIVersion: "batch/v1", Kind: "Job", Namespace: "default", Name: "pi"}
	rb.Spec.Replicas = 5
	rb.Spec.Placement.ReplicaScheduling.ReplicaSchedulingType = replicaType
	rb.Spec.Clusters = clusters
	return rbKind.wrap(rb)
}

func jobSpec(t *testing.T, w *unstructured.Unstructured) (parallelism, completions int64, hasCompletions bool) {
	t.Helper()
	parallelism, _, _ = unstructured.NestedInt64(w.Object, "spec", "parallelism")
	completions, hasCompletions, _ = unstructured.NestedInt64(w.Object, "spec", "completions")
	if _, found, _ := unstructured.NestedFieldNoCopy(w.Object, "spec", "ttlSecondsAfterFinished"); found {
		t.Error("spec.ttlSecondsAfterFinished not pruned")
	}
	return
}

// uidWithParity finds a UID whose tie-break favours the larger name or not.
func uidWithParity(largerFirst bool) string {
	for i := 0; ; i++ {
		uid := fmt.Sprintf("uid-%d", i)
		if assign.TieBreakFor(types.UID(uid)).LargerNameFirst == largerFirst {
			return uid
		}
	}
}

func TestJobCompletionsDividedByReplicas(t *testing.T) {
	// 10 completions over replicas 2:3 (parallelism revised to each share).
	b := jobBinding(policyv1alpha1.ReplicaSchedulingTypeDivided,
		workv1alpha2.TargetCluster{Name: "member2", Replicas: 3}, workv1alpha2.TargetCluster{Name: "member1", Replicas: 2})
	works := renderAll(t, b, jobTemplate(t, "u", "completions: 10"), nil)
	for cluster, want := range map[string][2]int64{"member1": {2, 4}, "member2": {3, 6}} {
		p, c, _ := jobSpec(t, manifestOf(t, works[cluster]))
		if p != want[0] || c != want[1] {
			t.Errorf("%s: parallelism %d completions %d, want %v", cluster, p, c, want)
		}
	}
}

func TestJobCompletionsTieBreakByUID(t *testing.T) {
	// 3 completions over 1:1: the tie goes to the smaller name unless the
	// UID's parity says otherwise.
	for _, largerFirst := range []bool{false, true} {
		b := jobBinding(policyv1alpha1.ReplicaSchedulingTypeDivided,
			workv1alpha2.TargetCluster{Name: "member1", Replicas: 1}, workv1alpha2.TargetCluster{Name: "member2", Replicas: 1})
		works := renderAll(t, b, jobTemplate(t, uidWithParity(largerFirst), "completions: 3"), nil)
		_, c1, _ := jobSpec(t, manifestOf(t, works["member1"]))
		_, c2, _ := jobSpec(t, manifestOf(t, works["member2"]))
		want1, want2 := int64(2), int64(1)
		if largerFirst {
			want1, want2 = 1, 2
		}
		if c1 != want1 || c2 != want2 {
			t.Errorf("largerFirst=%v: completions %d:%d, want %d:%d", largerFirst, c1, c2, want1, want2)
		}
	}
}

func TestJobCompletionsNotDivided(t *testing.T) {
	// Duplicated placement: every cluster keeps the template's completions.
	b := jobBinding(policyv1alpha1.ReplicaSchedulingTypeDuplicated,
		workv1alpha2.TargetCluster{Name: "member1", Replicas: 5}, workv1alpha2.TargetCluster{Name: "member2", Replicas: 5})
	works := renderAll(t, b, jobTemplate(t, "u", "completions: 10"), nil)
	if _, c, _ := jobSpec(t, manifestOf(t, works["member1"])); c != 10 {
		t.Errorf("duplicated: completions %d, want 10", c)
	}
	// A work-queue Job without completions keeps none.
	b = jobBinding(policyv1alpha1.ReplicaSchedulingTypeDivided,
		workv1alpha2.TargetCluster{Name: "member1", Replicas: 2}, workv1alpha2.TargetCluster{Name: "member2", Replicas: 3})
	works = renderAll(t, b, jobTemplate(t, "u", ""), nil)
	if p, _, has := jobSpec(t, manifestOf(t, works["member2"])); has || p != 3 {
		t.Errorf("work queue: completions set %v, parallelism %d", has, p)
	}
}
