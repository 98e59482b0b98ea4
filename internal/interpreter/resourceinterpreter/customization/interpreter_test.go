package customization

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

var (
	ctx        = context.Background()
	workload   = schema.GroupVersionKind{Group: "example.io", Version: "v1", Kind: "Workload"}
	opReplica  = configv1alpha1.InterpreterOperationInterpretReplica
	opHealth   = configv1alpha1.InterpreterOperationInterpretHealth
	opDeps     = configv1alpha1.InterpreterOperationInterpretDependency
	opStatus   = configv1alpha1.InterpreterOperationInterpretStatus
	opRetain   = configv1alpha1.InterpreterOperationRetain
	opAggStat  = configv1alpha1.InterpreterOperationAggregateStatus
	opRevise   = configv1alpha1.InterpreterOperationReviseReplica
	opComps    = configv1alpha1.InterpreterOperationInterpretComponent
	healthTrue = "function InterpretHealth(o) return true end"
)

// ric builds a customization of example.io/v1 Workload.
func ric(name string, rules configv1alpha1.CustomizationRules) configv1alpha1.ResourceInterpreterCustomization {
	return configv1alpha1.ResourceInterpreterCustomization{
		TypeMeta:   metav1.TypeMeta{APIVersion: "config.karmada.io/v1alpha1", Kind: "ResourceInterpreterCustomization"},
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "1"},
		Spec: configv1alpha1.ResourceInterpreterCustomizationSpec{
			Target:         configv1alpha1.CustomizationTarget{APIVersion: "example.io/v1", Kind: "Workload"},
			Customizations: rules,
		},
	}
}

func replicas(script string) configv1alpha1.CustomizationRules {
	return configv1alpha1.CustomizationRules{ReplicaResource: &configv1alpha1.ReplicaResourceRequirement{LuaScript: script}}
}

func deps(script string) configv1alpha1.CustomizationRules {
	return configv1alpha1.CustomizationRules{DependencyInterpretation: &configv1alpha1.DependencyInterpretation{LuaScript: script}}
}

func object(t *testing.T, js string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(js)); err != nil {
		t.Fatal(err)
	}
	return u
}

func newWorkload(t *testing.T) *unstructured.Unstructured {
	return object(t, `{"apiVersion":"example.io/v1","kind":"Workload","metadata":{"name":"w","namespace":"ns"},"spec":{"replicas":2}}`)
}

func loaded(list ...configv1alpha1.ResourceInterpreterCustomization) *Interpreter {
	i := New(Options{})
	i.LoadConfig(list)
	return i
}

func TestNotReadyUntilLoaded(t *testing.T) {
	i := New(Options{})
	if _, err := i.HookEnabled(workload, opReplica); !errors.Is(err, layer.ErrNotReady) {
		t.Errorf("HookEnabled before load: %v, want ErrNotReady", err)
	}
	if _, _, err := i.GetReplicas(ctx, newWorkload(t)); !errors.Is(err, layer.ErrNotReady) {
		t.Errorf("GetReplicas before load: %v, want ErrNotReady", err)
	}
	i.LoadConfig(nil)
	if ok, err := i.HookEnabled(workload, opReplica); ok || err != nil {
		t.Errorf("HookEnabled after an empty load: %v, %v", ok, err)
	}
	if _, _, err := i.GetReplicas(ctx, newWorkload(t)); !errors.Is(err, ErrNoRule) {
		t.Errorf("GetReplicas without a rule: %v", err)
	}
	if i.Name() != NameCustomization || New(Options{Name: NameBuiltin}).Name() != NameBuiltin {
		t.Error("wrong layer names")
	}
}

func TestMergeRules(t *testing.T) {
	i := loaded(
		ric("c", replicas("function GetReplicas(o) return 3 end")),
		ric("a", replicas("")), // empty: does not claim the operation
		ric("b", replicas("function GetReplicas(o) return 2 end")),
		ric("d", configv1alpha1.CustomizationRules{HealthInterpretation: &configv1alpha1.HealthInterpretation{LuaScript: healthTrue}}),
	)
	n, _, err := i.GetReplicas(ctx, newWorkload(t))
	if err != nil || n != 2 {
		t.Errorf("GetReplicas = %d, %v; want 2 from %q, the first non-empty script by name", n, err, "b")
	}
	for op, want := range map[configv1alpha1.InterpreterOperation]bool{
		opReplica: true, opHealth: true, opDeps: false, opRetain: false, opStatus: false,
		configv1alpha1.InterpreterOperationAll: false, configv1alpha1.InterpreterOperationPrune: false,
	} {
		if got, err := i.HookEnabled(workload, op); got != want || err != nil {
			t.Errorf("HookEnabled(%s) = %v, %v; want %v", op, got, err, want)
		}
	}
	// Exact GVK only.
	other := workload
	other.Version = "v2"
	if ok, _ := i.HookEnabled(other, opReplica); ok {
		t.Error("v2 matched a v1 customization")
	}
}

func TestUnparsableAPIVersionKeysByKind(t *testing.T) {
	r := ric("a", replicas("function GetReplicas(o) return 1 end"))
	r.Spec.Target.APIVersion = "a/b/c"
	i := loaded(r)
	if ok, _ := i.HookEnabled(schema.GroupVersionKind{Kind: "Workload"}, opReplica); !ok {
		t.Error("not keyed by kind alone")
	}
}

func TestDependenciesAreUnionedAndSorted(t *testing.T) {
	i := loaded(
		ric("b", deps(`function GetDependencies(o)
  return {{apiVersion = "v1", kind = "Secret", namespace = "ns", name = "s"},
          {apiVersion = "v1", kind = "ConfigMap", namespace = "ns", labelSelector = {matchLabels = {a = "b"}}}}
end`)),
		ric("a", deps(`function GetDependencies(o)
  return {{apiVersion = "v1", kind = "Secret", namespace = "ns", name = "s"},
          {apiVersion = "v1", kind = "ConfigMap", namespace = "ns", name = "c"},
          {apiVersion = "v1", kind = "ConfigMap", namespace = "ns", labelSelector = {matchLabels = {a = "b"}}}}
end`)),
		ric("c", deps("")),
	)
	got, err := i.GetDependencies(ctx, newWorkload(t))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(got)
	want := `[{"apiVersion":"v1","kind":"ConfigMap","namespace":"ns","labelSelector":{"matchLabels":{"a":"b"}}},` +
		`{"apiVersion":"v1","kind":"ConfigMap","namespace":"ns","labelSelector":{"matchLabels":{"a":"b"}}},` +
		`{"apiVersion":"v1","kind":"ConfigMap","namespace":"ns","name":"c"},` +
		`{"apiVersion":"v1","kind":"Secret","namespace":"ns","name":"s"}]`
	if string(data) != want {
		t.Errorf("got  %s\nwant %s", data, want)
	}
}

func TestDependenciesAreValidated(t *testing.T) {
	i := loaded(
		ric("a", deps(`function GetDependencies(o) return {{apiVersion = "v1", kind = "Secret", namespace = "ns", name = "ok"}} end`)),
		ric("b", deps(`function GetDependencies(o) return {{kind = "Secret", namespace = "ns"}} end`)),
	)
	_, err := i.GetDependencies(ctx, newWorkload(t))
	if err == nil || !strings.Contains(err.Error(), `customization "b" InterpretDependency`) ||
		!strings.Contains(err.Error(), "dependencies[0].apiVersion") || !strings.Contains(err.Error(), "dependencies[0].name") {
		t.Errorf("got %v", err)
	}
}

func TestBrokenScriptOnLoad(t *testing.T) {
	rec := record.NewFakeRecorder(10)
	i := New(Options{Recorder: rec})
	broken := ric("broken", replicas("function GetReplicas(o)\n  return 1 +\nend"))
	broken.Spec.Customizations.HealthInterpretation = &configv1alpha1.HealthInterpretation{LuaScript: healthTrue}
	i.LoadConfig([]configv1alpha1.ResourceInterpreterCustomization{broken})

	// The operation stays enabled and returns the compile error with the line.
	if ok, err := i.HookEnabled(workload, opReplica); !ok || err != nil {
		t.Errorf("HookEnabled = %v, %v", ok, err)
	}
	_, _, err := i.GetReplicas(ctx, newWorkload(t))
	var ce *luavm.CompileError
	if !errors.As(err, &ce) || ce.Line != 3 || !strings.HasPrefix(err.Error(), `customization "broken" InterpretReplica: broken:3:`) {
		t.Errorf("GetReplicas = %v", err)
	}
	// Other operations of the same customization still work.
	if ok, err := i.InterpretHealth(ctx, newWorkload(t)); !ok || err != nil {
		t.Errorf("InterpretHealth = %v, %v", ok, err)
	}
	select {
	case ev := <-rec.Events:
		if !strings.Contains(ev, "Warning "+ReasonInvalidScript+" InterpreterOperation(InterpretReplica) Lua script error: broken:3:") {
			t.Errorf("event %q", ev)
		}
	default:
		t.Fatal("no event")
	}
	// Reloading the same version does not repeat the event; a new version does.
	i.LoadConfig([]configv1alpha1.ResourceInterpreterCustomization{broken})
	if len(rec.Events) != 0 {
		t.Errorf("event repeated: %q", <-rec.Events)
	}
	broken.ResourceVersion = "2"
	i.LoadConfig([]configv1alpha1.ResourceInterpreterCustomization{broken})
	if len(rec.Events) != 1 {
		t.Errorf("%d events for a new version, want 1", len(rec.Events))
	}
}

func TestEveryOperationDispatches(t *testing.T) {
	i := loaded(ric("all", configv1alpha1.CustomizationRules{
		Retention:            &configv1alpha1.LocalValueRetention{LuaScript: "function Retain(d, o) d.spec.replicas = o.spec.replicas return d end"},
		ReplicaResource:      &configv1alpha1.ReplicaResourceRequirement{LuaScript: "function GetReplicas(o) return o.spec.replicas, nil end"},
		ComponentResource:    &configv1alpha1.ComponentResourceRequirement{LuaScript: "function GetComponents(o) return {{name = 'a', replicas = o.spec.replicas}} end"},
		ReplicaRevision:      &configv1alpha1.ReplicaRevision{LuaScript: "function ReviseReplica(o, r) o.spec.replicas = r return o end"},
		StatusReflection:     &configv1alpha1.StatusReflection{LuaScript: "function ReflectStatus(o) return {r = o.spec.replicas} end"},
		StatusAggregation:    &configv1alpha1.StatusAggregation{LuaScript: "function AggregateStatus(o, items) o.status = {n = #items} return o end"},
		HealthInterpretation: &configv1alpha1.HealthInterpretation{LuaScript: healthTrue},
	}))
	w := newWorkload(t)
	observed := object(t, `{"apiVersion":"example.io/v1","kind":"Workload","spec":{"replicas":5}}`)
	if out, err := i.Retain(ctx, w, observed); err != nil || out.Object["spec"].(map[string]any)["replicas"] != int64(5) {
		t.Errorf("Retain = %v, %v", out, err)
	}
	if n, _, err := i.GetReplicas(ctx, w); err != nil || n != 2 {
		t.Errorf("GetReplicas = %v, %v", n, err)
	}
	if c, err := i.GetComponents(ctx, w); err != nil || len(c) != 1 || c[0].Replicas != 2 {
		t.Errorf("GetComponents = %v, %v", c, err)
	}
	if out, err := i.ReviseReplica(ctx, w, 9); err != nil || out.Object["spec"].(map[string]any)["replicas"] != int64(9) {
		t.Errorf("ReviseReplica = %v, %v", out, err)
	}
	if raw, err := i.ReflectStatus(ctx, w); err != nil || string(raw.Raw) != `{"r":2}` {
		t.Errorf("ReflectStatus = %v, %v", raw, err)
	}
	items := []workv1alpha2.AggregatedStatusItem{{ClusterName: "a"}, {ClusterName: "b"}}
	if out, err := i.AggregateStatus(ctx, w, items); err != nil || out.Object["status"].(map[string]any)["n"] != int64(2) {
		t.Errorf("AggregateStatus = %v, %v", out, err)
	}
	if ok, err := i.InterpretHealth(ctx, w); err != nil || !ok {
		t.Errorf("InterpretHealth = %v, %v", ok, err)
	}
	if _, err := i.GetDependencies(ctx, w); !errors.Is(err, ErrNoRule) {
		t.Errorf("GetDependencies without a rule: %v", err)
	}
	if _, _, err := i.GetReplicas(ctx, nil); err == nil {
		t.Error("nil object accepted")
	}
}

func TestScriptErrorsNameCustomizationOperationAndLine(t *testing.T) {
	i := loaded(ric("my-ric", replicas("function GetReplicas(o)\n  local x\n  return x.y\nend")))
	_, _, err := i.GetReplicas(ctx, newWorkload(t))
	if err == nil || !strings.HasPrefix(err.Error(), `customization "my-ric" InterpretReplica: my-ric:3: attempt to index`) {
		t.Errorf("got %v", err)
	}
}

func TestReloadTakesEffectOnNextCall(t *testing.T) {
	i := loaded(ric("a", replicas("function GetReplicas(o) return 1 end")))
	if n, _, _ := i.GetReplicas(ctx, newWorkload(t)); n != 1 {
		t.Fatalf("got %d", n)
	}
	i.LoadConfig([]configv1alpha1.ResourceInterpreterCustomization{ric("a", replicas("function GetReplicas(o) return 7 end"))})
	if n, _, _ := i.GetReplicas(ctx, newWorkload(t)); n != 7 {
		t.Errorf("after reload got %d", n)
	}
}

// With CompileOnFirstCall a load compiles nothing, so a broken script is
// not reported then; its first call compiles it and returns the error with
// the line, and the other operations work.
func TestCompileOnFirstCall(t *testing.T) {
	rec := record.NewFakeRecorder(10)
	i := New(Options{Recorder: rec, CompileOnFirstCall: true})
	broken := ric("broken", replicas("function GetReplicas(o)\n  return 1 +\nend"))
	broken.Spec.Customizations.HealthInterpretation = &configv1alpha1.HealthInterpretation{LuaScript: healthTrue}
	i.LoadConfig([]configv1alpha1.ResourceInterpreterCustomization{broken})
	if len(rec.Events) != 0 {
		t.Fatalf("load compiled the scripts: %q", <-rec.Events)
	}
	if ok, err := i.HookEnabled(workload, opReplica); !ok || err != nil {
		t.Errorf("HookEnabled = %v, %v", ok, err)
	}
	_, _, err := i.GetReplicas(ctx, newWorkload(t))
	var ce *luavm.CompileError
	if !errors.As(err, &ce) || ce.Line != 3 || !strings.Contains(err.Error(), "broken:3:") {
		t.Errorf("GetReplicas = %v", err)
	}
	if ok, err := i.InterpretHealth(ctx, newWorkload(t)); !ok || err != nil {
		t.Errorf("InterpretHealth = %v, %v", ok, err)
	}
}
