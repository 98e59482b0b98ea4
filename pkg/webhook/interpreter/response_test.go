package interpreter

import (
	"errors"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

func TestHelpers(t *testing.T) {
	if r := Succeeded("ok"); !r.Successful || r.Status.Code != 200 || r.Status.Message != "ok" {
		t.Errorf("Succeeded = %+v", r)
	}
	if r := ValidationResponse(false, "no"); r.Successful || r.Status.Code != 403 || r.Status.Message != "no" {
		t.Errorf("ValidationResponse(false) = %+v", r)
	}
	if r := Errored(500, errors.New("bad")); r.Successful || r.Status.Code != 500 || r.Status.Message != "bad" {
		t.Errorf("Errored = %+v", r)
	}
}

func TestPatchResponseFromRaw(t *testing.T) {
	original := []byte(`{"kind":"Workload","spec":{"replicas":3,"paused":false,"keep":{"a":[1,2]}}}`)
	current := []byte(`{"kind":"Workload","spec":{"replicas":5,"keep":{"a":[1,2]}},"status":{"readyReplicas":2}}`)
	r := PatchResponseFromRaw(original, current)
	if !r.Successful || r.PatchType == nil || *r.PatchType != configv1alpha1.PatchTypeJSONPatch || len(r.Patch) == 0 {
		t.Fatalf("response = %+v", r)
	}
	patch, err := jsonpatch.DecodePatch(r.Patch)
	if err != nil {
		t.Fatal(err)
	}
	if len(patch) != 3 {
		t.Errorf("patch %s has %d operations, want 3 (replace, remove, add)", r.Patch, len(patch))
	}
	applied, err := patch.Apply(original)
	if err != nil {
		t.Fatal(err)
	}
	if !jsonpatch.Equal(applied, current) {
		t.Fatalf("patched %s, want %s", applied, current)
	}

	if r := PatchResponseFromRaw(original, original); !r.Successful || r.Patch != nil || r.PatchType != nil || r.Status.Code != 200 {
		t.Fatalf("no-change response = %+v", r)
	}
	if r := PatchResponseFromRaw(original, []byte("{")); r.Successful || r.Status.Code != 500 {
		t.Fatalf("invalid JSON response = %+v", r)
	}
}
