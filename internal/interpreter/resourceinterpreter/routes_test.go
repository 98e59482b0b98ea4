package resourceinterpreter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// versionedLayer is a fakeLayer with a configuration version, counting
// how often the facade asks it for a hook.
type versionedLayer struct {
	*fakeLayer
	version uint64
	asked   int
}

func (v *versionedLayer) ConfigVersion() uint64 { return v.version }
func (v *versionedLayer) HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) (bool, error) {
	v.asked++
	return v.fakeLayer.HookEnabled(gvk, op)
}

func TestRouteKeptWhileVersionsStay(t *testing.T) {
	lua := &versionedLayer{fakeLayer: &fakeLayer{name: "customization", replicas: 2}, version: 1}
	nat := &versionedLayer{fakeLayer: &fakeLayer{name: "native", hooks: replicaHook, replicas: 3}}
	i := New(lua, nat)
	rec := record.NewFakeRecorder(10)
	i.RecordEvents(rec, time.Hour)
	ctx := context.Background()
	replicas := func() int32 {
		t.Helper()
		n, _, err := i.GetReplicas(ctx, workload())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for range 3 {
		if n := replicas(); n != 3 {
			t.Fatalf("replicas = %d, want 3 from native", n)
		}
	}
	if lua.asked != 1 {
		t.Fatalf("the customization layer was asked %d times for 3 calls under one version, want 1", lua.asked)
	}

	lua.hooks, lua.version = replicaHook, 2 // a customization is published
	for range 3 {
		if n := replicas(); n != 2 {
			t.Fatalf("replicas = %d after the new version, want 2 from the customization", n)
		}
	}
	if lua.asked != 2 {
		t.Fatalf("the customization layer was asked %d times in all, want 2 (once per version)", lua.asked)
	}
	if ev := drain(rec.Events); len(ev) != 1 || !strings.Contains(ev[0], ReasonInterpreterLayerChanged) {
		t.Fatalf("events = %v, want one %s", ev, ReasonInterpreterLayerChanged)
	}

	// Another operation and another kind are routes of their own.
	other := workload()
	other.SetKind("Other")
	if _, _, err := i.GetReplicas(ctx, other); err != nil {
		t.Fatal(err)
	}
	if lua.asked != 3 {
		t.Fatalf("asked %d times, want 3: a new kind is picked anew", lua.asked)
	}
}

func TestRouteNotKeptForUnversionedLayersOrErrors(t *testing.T) {
	ctx := context.Background()
	plain := &fakeLayer{name: "webhook"}
	lua := &versionedLayer{fakeLayer: &fakeLayer{name: "customization", hooks: replicaHook, replicas: 2}, version: 1}
	i := New(plain, lua)
	for range 3 {
		if _, _, err := i.GetReplicas(ctx, workload()); err != nil {
			t.Fatal(err)
		}
	}
	plain.hooks, plain.replicas = replicaHook, 7 // no version to change: asked on every call
	if n, _, err := i.GetReplicas(ctx, workload()); err != nil || n != 7 {
		t.Fatalf("GetReplicas = %d, %v; want 7 from the layer without versions", n, err)
	}

	// A layer that is not ready is asked again on the next call, version
	// unchanged: the error is not kept.
	notReady := &versionedLayer{fakeLayer: &fakeLayer{name: "webhook", notReady: true}, version: 5}
	nat := &versionedLayer{fakeLayer: &fakeLayer{name: "native", hooks: replicaHook, replicas: 3}}
	j := New(notReady, nat)
	if _, _, err := j.GetReplicas(ctx, workload()); !errors.Is(err, layer.ErrNotReady) {
		t.Fatalf("err = %v, want ErrNotReady", err)
	}
	notReady.notReady = false
	if n, _, err := j.GetReplicas(ctx, workload()); err != nil || n != 3 {
		t.Fatalf("GetReplicas = %d, %v once ready; want 3", n, err)
	}
}

func TestRouteTableBounded(t *testing.T) {
	nat := &versionedLayer{fakeLayer: &fakeLayer{name: "native", hooks: replicaHook}}
	table := newRouteTable([]layer.Layer{nat})
	r := &route{versions: []uint64{0}, layer: nat}
	for n := range maxRoutes + 10 {
		table.keep(routeKey{apiVersion: "v1", kind: fmt.Sprint("K", n)}, r)
	}
	if got := len(*table.current.Load()); got != maxRoutes {
		t.Fatalf("%d routes kept, want at most %d", got, maxRoutes)
	}
	long := routeKey{apiVersion: strings.Repeat("a", maxRouteKeyLen), kind: "K"}
	table.keep(long, r)
	if table.lookup(long) != nil {
		t.Fatal("a route with an over-long key was kept")
	}
	// A full table still replaces a stale route of a kept key.
	stale := routeKey{apiVersion: "v1", kind: "K1"}
	nat.version = 9
	if table.lookup(stale) != nil {
		t.Fatal("a route made under another version was returned")
	}
	table.keep(stale, &route{versions: []uint64{9}, layer: nat})
	if table.lookup(stale) == nil {
		t.Fatal("a full table did not replace the stale route of a kept key")
	}
}

// TestRouteFollowsRealCustomizationLoads runs the real Lua layer: each
// LoadConfig publishes a new version, so a customization added, changed
// or removed answers (or stops answering) from the next call.
func TestRouteFollowsRealCustomizationLoads(t *testing.T) {
	lua := customization.New(customization.Options{})
	lua.LoadConfig(nil)
	i := New(lua, native.New())
	ctx := context.Background()
	deploy := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "web", "namespace": "default"},
			"spec":     map[string]any{"replicas": int64(4)},
		}}
	}
	load := func(replicas string) {
		var list []configv1alpha1.ResourceInterpreterCustomization
		if replicas != "" {
			list = append(list, configv1alpha1.ResourceInterpreterCustomization{
				ObjectMeta: metav1.ObjectMeta{Name: "deploy-replicas"},
				Spec: configv1alpha1.ResourceInterpreterCustomizationSpec{
					Target: configv1alpha1.CustomizationTarget{APIVersion: "apps/v1", Kind: "Deployment"},
					Customizations: configv1alpha1.CustomizationRules{ReplicaResource: &configv1alpha1.ReplicaResourceRequirement{
						LuaScript: "function GetReplicas(obj)\n  return " + replicas + ", nil\nend"}},
				},
			})
		}
		lua.LoadConfig(list)
	}
	for _, step := range []struct {
		script string
		want   int32
	}{{"", 4}, {"9", 9}, {"", 4}, {"11", 11}, {"12", 12}} {
		load(step.script)
		for range 2 {
			n, _, err := i.GetReplicas(ctx, deploy())
			if err != nil || n != step.want {
				t.Fatalf("after loading %q: GetReplicas = %d, %v; want %d", step.script, n, err, step.want)
			}
		}
	}
}

// TestRoutesUnderConcurrentLoads calls the facade from several goroutines
// while configurations are published (run with -race): every answer is
// one of the published ones, and once loading stops every call gives the
// last one.
func TestRoutesUnderConcurrentLoads(t *testing.T) {
	lua := customization.New(customization.Options{})
	lua.LoadConfig(nil)
	i := New(lua, native.New())
	ctx := context.Background()
	deploy := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "default"},
		"spec":     map[string]any{"replicas": int64(4)},
	}}
	load := func(replicas int) {
		lua.LoadConfig([]configv1alpha1.ResourceInterpreterCustomization{{
			ObjectMeta: metav1.ObjectMeta{Name: "deploy-replicas"},
			Spec: configv1alpha1.ResourceInterpreterCustomizationSpec{
				Target: configv1alpha1.CustomizationTarget{APIVersion: "apps/v1", Kind: "Deployment"},
				Customizations: configv1alpha1.CustomizationRules{ReplicaResource: &configv1alpha1.ReplicaResourceRequirement{
					LuaScript: fmt.Sprintf("function GetReplicas(obj)\n  return %d, nil\nend", replicas)}},
			},
		}})
	}
	const loads = 50
	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				n, _, err := i.GetReplicas(ctx, deploy.DeepCopy())
				if err == nil && n != 4 && (n < 100 || n >= 100+loads) {
					err = fmt.Errorf("replicas %d was never published", n)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for k := range loads {
		load(100 + k)
	}
	close(done)
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n, _, err := i.GetReplicas(ctx, deploy.DeepCopy()); err != nil || n != 100+loads-1 {
		t.Fatalf("GetReplicas = %d, %v after the last load; want %d", n, err, 100+loads-1)
	}
}
