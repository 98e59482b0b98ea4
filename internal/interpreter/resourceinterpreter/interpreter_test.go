package resourceinterpreter

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// fakeLayer answers GetReplicas with a fixed number for the operations it hooks.
type fakeLayer struct {
	name     string
	hooks    map[configv1alpha1.InterpreterOperation]bool
	notReady bool
	replicas int32
	err      error
	calls    int
	// answer is what ReviseReplica and Retain return; deps what
	// GetDependencies returns.
	answer *unstructured.Unstructured
	deps   []configv1alpha1.DependentObjectReference
	// reqs are GetReplicas's requirements; comps, when set, what
	// GetComponents returns.
	reqs  *workv1alpha2.ReplicaRequirements
	comps []workv1alpha2.Component
}

func (f *fakeLayer) Name() string { return f.name }
func (f *fakeLayer) HookEnabled(_ schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) (bool, error) {
	if f.notReady {
		return false, layer.ErrNotReady
	}
	return f.hooks[op], nil
}
func (f *fakeLayer) GetReplicas(context.Context, *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error) {
	f.calls++
	return f.replicas, f.reqs, f.err
}
func (f *fakeLayer) ReviseReplica(context.Context, *unstructured.Unstructured, int64) (*unstructured.Unstructured, error) {
	return f.answer, f.err
}
func (f *fakeLayer) GetComponents(context.Context, *unstructured.Unstructured) ([]workv1alpha2.Component, error) {
	f.calls++
	if f.comps != nil {
		return f.comps, nil
	}
	return []workv1alpha2.Component{{Name: f.name}}, nil
}
func (f *fakeLayer) Retain(context.Context, *unstructured.Unstructured, *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	return f.answer, f.err
}
func (f *fakeLayer) AggregateStatus(context.Context, *unstructured.Unstructured, []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	return nil, nil
}
func (f *fakeLayer) ReflectStatus(context.Context, *unstructured.Unstructured) (*runtime.RawExtension, error) {
	return nil, nil
}
func (f *fakeLayer) InterpretHealth(context.Context, *unstructured.Unstructured) (bool, error) {
	return false, nil
}
func (f *fakeLayer) GetDependencies(context.Context, *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	return f.deps, f.err
}

var replicaHook = map[configv1alpha1.InterpreterOperation]bool{configv1alpha1.InterpreterOperationInterpretReplica: true}

func workload() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("workload.example.io/v1alpha1")
	u.SetKind("Workload")
	u.SetNamespace("default")
	u.SetName("nginx")
	return u
}

func TestFirstLayerWithHookAnswersAlone(t *testing.T) {
	webhook := &fakeLayer{name: "webhook", replicas: 1}
	lua := &fakeLayer{name: "customization", hooks: replicaHook, replicas: 2}
	native := &fakeLayer{name: "native", hooks: replicaHook, replicas: 3}
	i := New(webhook, lua, native)
	n, _, err := i.GetReplicas(context.Background(), workload())
	if err != nil || n != 2 {
		t.Fatalf("GetReplicas = %d, %v; want 2 from the customization layer", n, err)
	}
	if webhook.calls+native.calls != 0 {
		t.Fatalf("other layers were called: webhook %d, native %d", webhook.calls, native.calls)
	}
}

func TestErrorIsNotReplacedByLowerLayer(t *testing.T) {
	boom := errors.New("script line 3: boom")
	lua := &fakeLayer{name: "customization", hooks: replicaHook, err: boom}
	native := &fakeLayer{name: "native", hooks: replicaHook, replicas: 3}
	_, _, err := New(lua, native).GetReplicas(context.Background(), workload())
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the customization's error", err)
	}
	for _, want := range []string{"customization", "InterpretReplica", "workload.example.io/v1alpha1/Workload", "default/nginx"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if native.calls != 0 {
		t.Fatal("native layer answered after the customization failed")
	}
}

func TestNotReadyLayerStopsFallThrough(t *testing.T) {
	webhook := &fakeLayer{name: "webhook", notReady: true}
	native := &fakeLayer{name: "native", hooks: replicaHook, replicas: 3}
	i := New(webhook, native)
	if _, _, err := i.GetReplicas(context.Background(), workload()); !errors.Is(err, layer.ErrNotReady) {
		t.Fatalf("err = %v, want ErrNotReady", err)
	}
	if native.calls != 0 {
		t.Fatal("fell through to native while the webhook layer was not ready")
	}
	if !i.HookEnabled(workload().GroupVersionKind(), configv1alpha1.InterpreterOperationRetain) {
		t.Fatal("HookEnabled = false while a layer is not ready; want true so callers do not skip the operation")
	}
}

func TestFallbackAnswersWhenNoHook(t *testing.T) {
	native := &fakeLayer{name: "native", replicas: 7}
	i := New(&fakeLayer{name: "webhook"}, native)
	if n, _, err := i.GetReplicas(context.Background(), workload()); err != nil || n != 7 {
		t.Fatalf("GetReplicas = %d, %v; want the fallback's 7", n, err)
	}
	if i.HookEnabled(workload().GroupVersionKind(), configv1alpha1.InterpreterOperationInterpretReplica) {
		t.Fatal("HookEnabled = true with no hook anywhere")
	}
}

func TestGetComponentsHasNoFallback(t *testing.T) {
	native := &fakeLayer{name: "native"}
	_, err := New(&fakeLayer{name: "webhook"}, native).GetComponents(context.Background(), workload())
	if !errors.Is(err, ErrNoHook) || native.calls != 0 {
		t.Fatalf("err = %v, native calls %d; want ErrNoHook without calling native", err, native.calls)
	}
}

func TestMetricsNameLayerAndResult(t *testing.T) {
	lua := &fakeLayer{name: "metrics-test-layer", hooks: replicaHook, err: errors.New("x")}
	i := New(lua, &fakeLayer{name: "native"})
	before := testutil.ToFloat64(callsTotal.WithLabelValues("InterpretReplica", "metrics-test-layer", "workload.example.io/v1alpha1/Workload", "error"))
	_, _, _ = i.GetReplicas(context.Background(), workload())
	after := testutil.ToFloat64(callsTotal.WithLabelValues("InterpretReplica", "metrics-test-layer", "workload.example.io/v1alpha1/Workload", "error"))
	if after != before+1 {
		t.Fatalf("calls_total went from %v to %v, want +1", before, after)
	}

	// A call no layer can be picked for counts under layer "none".
	unanswered := callsTotal.WithLabelValues("InterpretReplica", "none", "workload.example.io/v1alpha1/Workload", "error")
	before = testutil.ToFloat64(unanswered)
	if _, _, err := New(&fakeLayer{name: "webhook", notReady: true}, &fakeLayer{name: "native"}).GetReplicas(context.Background(), workload()); err == nil {
		t.Fatal("no error from a layer that is not ready")
	}
	if after := testutil.ToFloat64(unanswered); after != before+1 {
		t.Fatalf("calls_total for layer none went from %v to %v, want +1", before, after)
	}
}

func TestPrecedence(t *testing.T) {
	w, c, n := &fakeLayer{name: "webhook"}, &fakeLayer{name: "customization"}, &fakeLayer{name: "native"}
	names := func(ls []layer.Layer) string {
		var s []string
		for _, l := range ls {
			s = append(s, l.Name())
		}
		return strings.Join(s, ",")
	}
	for p, want := range map[Precedence]string{
		PrecedencePropel:  "webhook,customization,native",
		PrecedenceKarmada: "customization,webhook,native",
	} {
		got, err := Layers{Webhook: w, Customization: c, Native: n}.Ordered(p)
		if err != nil || names(got) != want {
			t.Errorf("%s: got %s, %v; want %s", p, names(got), err, want)
		}
	}
	if _, err := (Layers{Webhook: w, Customization: c, Native: n}).Ordered("lua-first"); err == nil {
		t.Error("unknown precedence accepted")
	}
	if _, err := (Layers{Webhook: w}).Ordered(PrecedencePropel); err == nil {
		t.Error("missing native layer accepted")
	}
}
