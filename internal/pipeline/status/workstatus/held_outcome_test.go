package workstatus

import (
	"errors"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/shared/workapply"
)

// An Outcome waiting for its write keeps its applied objects compact, not
// decoded, without managedFields, and leaves the execution controller's
// objects as they were.
func TestHoldKeepsAppliedObjectsCompact(t *testing.T) {
	applied := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]interface{}{
			"name": "web", "namespace": "default", "resourceVersion": "7", "generation": int64(2),
			"managedFields": []interface{}{map[string]interface{}{"manager": "propel", "operation": "Apply"}},
		},
		"spec":   map[string]interface{}{"replicas": int64(3)},
		"status": map[string]interface{}{"observedGeneration": int64(2), "readyReplicas": int64(3)},
	}}
	original := applied.DeepCopy()
	denied := errors.New("denied")
	h := hold(workapply.Outcome{WorkUID: "uid-1", Manifests: []workapply.Manifest{
		{Ref: workapply.Ref{Ordinal: 0}, Object: applied},
		{Ref: workapply.Ref{Ordinal: 1}, Err: denied},
	}})

	if !reflect.DeepEqual(applied, original) {
		t.Fatalf("hold modified the applied object: %v", applied.Object)
	}
	if h.outcome.WorkUID != "uid-1" || len(h.outcome.Manifests) != 2 || h.outcome.Manifests[1].Err != denied {
		t.Fatalf("held outcome lost its UID or errors: %+v", h.outcome)
	}
	for i, m := range h.outcome.Manifests {
		if m.Object != nil {
			t.Errorf("manifest %d keeps its decoded object", i)
		}
	}
	objs := h.appliedObjects()
	if len(objs) != 1 || objs[0] == nil {
		t.Fatalf("applied objects = %v, want the one of ordinal 0", objs)
	}
	want := original.DeepCopy()
	want.SetManagedFields(nil)
	if !reflect.DeepEqual(objs[0].Object, want.Object) {
		t.Errorf("decoded applied object:\n got %v\nwant %v", objs[0].Object, want.Object)
	}
	if objs[0] == applied {
		t.Error("the decoded object is the execution controller's")
	}
}
