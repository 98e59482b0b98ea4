package manifeststatus

import (
	"context"
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/shared/workapply"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

type fakeInterp struct {
	health     bool
	healthErr  error
	reflectErr error
}

func (f fakeInterp) HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) bool {
	return gvk.Kind != "ConfigMap"
}
func (f fakeInterp) ReflectStatus(context.Context, *unstructured.Unstructured) (*runtime.RawExtension, error) {
	return &runtime.RawExtension{Raw: []byte(`{"x":1}`)}, f.reflectErr
}
func (f fakeInterp) InterpretHealth(context.Context, *unstructured.Unstructured) (bool, error) {
	return f.health, f.healthErr
}

func TestReflect(t *testing.T) {
	ctx := context.Background()
	ref := workapply.Ref{GVK: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, Namespace: "default", Name: "nginx"}
	obj := &unstructured.Unstructured{}
	cases := []struct {
		interp      fakeInterp
		ref         workapply.Ref
		want        workv1alpha1.ResourceHealth
		interpreted bool // InterpretHealthSucceed is due
	}{
		{fakeInterp{health: true}, ref, workv1alpha1.ResourceHealthy, true},
		{fakeInterp{health: false}, ref, workv1alpha1.ResourceUnhealthy, true},
		{fakeInterp{healthErr: errors.New("boom")}, ref, workv1alpha1.ResourceUnknown, false},
		{fakeInterp{}, workapply.Ref{GVK: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}}, workv1alpha1.ResourceHealthy, false},
	}
	for _, c := range cases {
		res, err := Reflect(ctx, c.interp, c.ref, obj)
		if err != nil || res.Status.Health != c.want || (res.HealthErr != nil) != (c.interp.healthErr != nil) || res.HealthInterpreted != c.interpreted {
			t.Errorf("%+v: %+v %v", c.interp, res, err)
		}
	}
	if _, err := Reflect(ctx, fakeInterp{reflectErr: errors.New("bad")}, ref, obj); err == nil {
		t.Error("a ReflectStatus failure is an error")
	}
}

// TestReflectNative runs the real interpreter on a member Deployment.
func TestReflectNative(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]interface{}{"name": "nginx", "namespace": "default", "generation": int64(1),
			"annotations": map[string]interface{}{"resourcetemplate.karmada.io/generation": "1"}},
		"spec":   map[string]interface{}{"replicas": int64(2)},
		"status": map[string]interface{}{"observedGeneration": int64(1), "replicas": int64(2), "updatedReplicas": int64(2), "readyReplicas": int64(2), "availableReplicas": int64(2)},
	}}
	ref := workapply.Ref{GVK: obj.GroupVersionKind(), Namespace: "default", Name: "nginx"}
	res, err := Reflect(context.Background(), resourceinterpreter.New(native.New()), ref, obj)
	if err != nil {
		t.Fatal(err)
	}
	want := &runtime.RawExtension{Raw: []byte(`{"availableReplicas":2,"generation":1,"observedGeneration":1,"readyReplicas":2,"replicas":2,"resourceTemplateGeneration":1,"updatedReplicas":2}`)}
	if !RawEqual(res.Status.Status, want) || res.Status.Health != workv1alpha1.ResourceHealthy {
		t.Fatalf("got %s %s", res.Status.Status.Raw, res.Status.Health)
	}
}

func TestMergeAndEqual(t *testing.T) {
	refs := []workapply.Ref{{Ordinal: 0, Name: "a"}, {Ordinal: 1, Name: "b"}}
	old := []workv1alpha1.ManifestStatus{
		{Identifier: refs[1].Identifier(), Health: workv1alpha1.ResourceHealthy},
		{Identifier: workv1alpha1.ResourceIdentifier{Name: "gone"}},
	}
	fresh := map[int]workv1alpha1.ManifestStatus{0: {Identifier: refs[0].Identifier(), Status: &runtime.RawExtension{Raw: []byte(`{"a":1}`)}}}
	got := Merge(old, refs, fresh)
	if len(got) != 2 || got[0].Identifier.Name != "a" || got[1].Health != workv1alpha1.ResourceHealthy {
		t.Fatalf("merge %+v", got)
	}
	same := []workv1alpha1.ManifestStatus{got[0], got[1]}
	same[0].Status = &runtime.RawExtension{Raw: []byte(` { "a" : 1 } `)}
	if !Equal(got, same) {
		t.Error("formatting must not matter")
	}
	same[0].Status = &runtime.RawExtension{Raw: []byte(`{"a":2}`)}
	if Equal(got, same) || Equal(got, got[:1]) {
		t.Error("differences missed")
	}
	if Merge(nil, nil, nil) != nil {
		t.Error("empty merge is nil")
	}
	if !RawEqual(nil, &runtime.RawExtension{Raw: []byte("null")}) || RawEqual(nil, fresh[0].Status) {
		t.Error("null handling")
	}
}
