// These tests run the probes of an attacker with write access to
// ResourceInterpreterCustomizations, interpreter webhooks or Cluster
// objects through Propel's real layers, and asserts for each a clear
// error, bounded time, and that the process survives.

package hostile

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/record"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// probeDeadline bounds every Lua probe: far above what a probe takes, far
// below the minutes the unfixed probes took (or the crash).
const probeDeadline = 30 * time.Second

func customizationOf(name, getReplicas string) configv1alpha1.ResourceInterpreterCustomization {
	return configv1alpha1.ResourceInterpreterCustomization{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: "uid", ResourceVersion: "1"},
		Spec: configv1alpha1.ResourceInterpreterCustomizationSpec{
			Target: configv1alpha1.CustomizationTarget{APIVersion: "example.io/v1", Kind: "Workload"},
			Customizations: configv1alpha1.CustomizationRules{
				ReplicaResource: &configv1alpha1.ReplicaResourceRequirement{LuaScript: getReplicas},
			},
		},
	}
}

// loadProbes loads each probe's GetReplicas as the customization of a kind
// named after the probe, as the controller loads customizations.
func loadProbes(probes map[string]struct{ src, want string }) *customization.Interpreter {
	i := customization.New(customization.Options{})
	var list []configv1alpha1.ResourceInterpreterCustomization
	for name, p := range probes {
		c := customizationOf(name, p.src)
		c.Spec.Target.Kind = name
		list = append(list, c)
	}
	i.LoadConfig(list)
	return i
}

func luaWorkload() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.io/v1", "kind": "Workload",
		"metadata": map[string]any{"name": "w", "namespace": "default"},
		"spec":     map[string]any{"replicas": int64(2)},
	}}
}

// within runs probe and fails the test when it takes longer than
// probeDeadline (the probe keeps running; the test binary then fails).
func within(t *testing.T, probe func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		probe()
	}()
	select {
	case <-done:
	case <-time.After(probeDeadline):
		t.Fatalf("probe still running after %s", probeDeadline)
	}
}

// Scripts that crashed (fatal stack overflow), stalled (quadratic
// compile) or bloated compiling: rejected on load with an Event naming the
// customization, the operation and the limit; the operation returns the
// error; the layer keeps serving the other customizations.
func TestLuaHostileCompile(t *testing.T) {
	consts := &strings.Builder{}
	consts.WriteString("function GetReplicas(o) local t = {")
	for i := 0; i < 80_000; i++ {
		fmt.Fprintf(consts, "%d,", i)
	}
	consts.WriteString("} return 1, nil end")
	probes := map[string]struct{ src, limit string }{
		"hashes":    {"function GetReplicas(o) local t={} return " + strings.Repeat("#", 1_300_000) + "t,nil end", "limit of 65536 bytes"},
		"nesting":   {"function GetReplicas(o) return " + strings.Repeat("(", 30_000) + "1" + strings.Repeat(")", 30_000) + ", nil end", "limit of 200 levels"},
		"unary":     {"function GetReplicas(o) local t={} return " + strings.Repeat("#", 60_000) + "t,nil end", "limit of 200 levels"},
		"constants": {consts.String(), "limit of"},
	}
	for name, p := range probes {
		t.Run(name, func(t *testing.T) {
			rec := record.NewFakeRecorder(10)
			i := customization.New(customization.Options{Recorder: rec})
			within(t, func() {
				i.LoadConfig([]configv1alpha1.ResourceInterpreterCustomization{
					customizationOf("hostile-"+name, p.src),
					{ObjectMeta: metav1.ObjectMeta{Name: "honest"}, Spec: configv1alpha1.ResourceInterpreterCustomizationSpec{
						Target: configv1alpha1.CustomizationTarget{APIVersion: "example.io/v1", Kind: "Other"},
						Customizations: configv1alpha1.CustomizationRules{ReplicaResource: &configv1alpha1.ReplicaResourceRequirement{
							LuaScript: "function GetReplicas(o) return 5, nil end"}}}},
				})
			})
			select {
			case ev := <-rec.Events:
				for _, want := range []string{corev1.EventTypeWarning, customization.ReasonInvalidScript, "InterpretReplica", "hostile-" + name, p.limit} {
					if !strings.Contains(ev, want) {
						t.Errorf("event %q lacks %q", ev, want)
					}
				}
			default:
				t.Error("no event")
			}
			_, _, err := i.GetReplicas(context.Background(), luaWorkload())
			if err == nil || !strings.Contains(err.Error(), p.limit) {
				t.Errorf("GetReplicas: %v, want the limit error", err)
			}
			other := luaWorkload()
			other.SetKind("Other")
			if n, _, err := i.GetReplicas(context.Background(), other); err != nil || n != 5 {
				t.Errorf("the honest customization: %d, %v", n, err)
			}
			// The same check as `propelctl interpret --check`.
			ric := customizationOf("hostile-"+name, p.src)
			for _, c := range customization.Check(&ric) {
				if c.Operation == configv1alpha1.InterpreterOperationInterpretReplica && (c.Err == nil || !strings.Contains(c.Err.Error(), p.limit)) {
					t.Errorf("check: %v", c.Err)
				}
			}
		})
	}
}

// A script that hijacks libraries and globals cannot change what the next
// customization sees on the same pooled state.
func TestLuaHostileIsolation(t *testing.T) {
	i := customization.New(customization.Options{})
	hostile := customizationOf("hostile", `local kube = require("kube")
function GetReplicas(o)
  pcall(function() string.upper = function() return "HIJACKED" end end)
  pcall(function() kube.resourceAdd = function() return "HIJACKED" end end)
  tostring = function() return "HIJACKED" end
  leaked = "x"
  return 1, nil
end`)
	honest := customizationOf("honest", `local kube = require("kube")
function GetReplicas(o)
  if string.upper("a") ~= "A" or kube.resourceAdd("1", "2") ~= "3" or tostring(1) ~= "1" or leaked ~= nil then
    error("poisoned")
  end
  return 7, nil
end`)
	honest.Spec.Target.Kind = "Other"
	i.LoadConfig([]configv1alpha1.ResourceInterpreterCustomization{hostile, honest})
	other := luaWorkload()
	other.SetKind("Other")
	for n := 0; n < 50; n++ {
		if _, _, err := i.GetReplicas(context.Background(), luaWorkload()); err != nil {
			t.Fatal(err)
		}
		if r, _, err := i.GetReplicas(context.Background(), other); err != nil || r != 7 {
			t.Fatalf("honest call %d: %d, %v", n, r, err)
		}
	}
}

// Runtime probes: a clear, bounded error, in bounded time.
func TestLuaHostileRuntime(t *testing.T) {
	probes := map[string]struct{ src, want string }{
		"hugeError": {`function GetReplicas(o) local s = "0123456789abcdef" for i = 1, 20 do s = s .. s end error(s) end`, "truncated"},
		"endless":   {`function GetReplicas(o) while true do end end`, "exceeded"},
		"memory":    {`function GetReplicas(o) local s = "x" for i = 1, 40 do s = s .. s end return 1, nil end`, "exceeded"},
		"deepStack": {`local function f(n) return 1 + f(n + 1) end function GetReplicas(o) return f(1), nil end`, "stack overflow"},
	}
	i := loadProbes(probes)
	for name, p := range probes {
		t.Run(name, func(t *testing.T) {
			obj := luaWorkload()
			obj.SetKind(name)
			within(t, func() {
				_, _, err := i.GetReplicas(context.Background(), obj)
				if err == nil || !strings.Contains(err.Error(), p.want) || !strings.Contains(err.Error(), name) {
					t.Errorf("got %.300v, want an error naming %s with %q", err, name, p.want)
				}
				if err != nil && len(err.Error()) > 5000 {
					t.Errorf("error of %d bytes", len(err.Error()))
				}
			})
		})
	}
	// table.concat of many elements works.
	c := customizationOf("concat", `function GetReplicas(o) local t = {} for i = 1, 3000 do t[i] = "x" end return #table.concat(t), nil end`)
	i.LoadConfig([]configv1alpha1.ResourceInterpreterCustomization{c})
	if n, _, err := i.GetReplicas(context.Background(), luaWorkload()); err != nil || n != 3000 {
		t.Errorf("table.concat of 3000 elements: %d, %v", n, err)
	}
}

// Library calls and operators that build one big string in a single call:
// width and precision past 99, or a result over the allocation budget, are
// refused before anything is built. Unfixed, the format probes allocated
// 2.5 GB and the table.concat probe 1.65 GB before the 128 MiB budget
// fired.
func TestLuaHostileStringBuilders(t *testing.T) {
	const maxAlloc = 64 << 20
	probes := map[string]struct{ src, want string }{
		"formatIndexedWidth": {`function GetReplicas(o)
  local f = ""
  for i = 1, 30 do f = f .. "%9999999[1]s" end
  return #string.format(f, "x"), nil
end`, `width 9999999 in "%9999999[1]s" exceeds the limit of 99`},
		"formatWidth": {`function GetReplicas(o)
  local f, args = "", {}
  for i = 1, 30 do f, args[i] = f .. "%9999999s", "x" end
  return #string.format(f, unpack(args)), nil
end`, `width 9999999 in "%9999999s" exceeds the limit of 99`},
		"concatSeparator": {`function GetReplicas(o)
  local sep = "x"
  for i = 1, 20 do sep = sep .. sep end
  local t = {}
  for i = 1, 301 do t[i] = "" end
  return #table.concat(t, sep), nil
end`, "allocation budget of 128 MiB"},
		"concatOperator": {`function GetReplicas(o)
  local s = "x"
  for i = 1, 22 do s = s .. s end
  local u = s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s ..
    s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s
  return #u, nil
end`, "the .. operator would build up to 160 MiB"},
	}
	i := loadProbes(probes)
	for name, p := range probes {
		t.Run(name, func(t *testing.T) {
			obj := luaWorkload()
			obj.SetKind(name)
			var err error
			var took time.Duration
			alloc := heapGrowth(func() {
				within(t, func() {
					start := time.Now()
					_, _, err = i.GetReplicas(context.Background(), obj)
					took = time.Since(start)
				})
			})
			t.Logf("%s: %v, %d MiB allocated", name, took, alloc>>20)
			if err == nil || !strings.Contains(err.Error(), p.want) || !strings.Contains(err.Error(), name) {
				t.Errorf("got %.300v, want an error naming %s with %q", err, name, p.want)
			}
			if alloc > maxAlloc {
				t.Errorf("the probe allocated %d MiB, want at most %d MiB", alloc>>20, maxAlloc>>20)
			}
		})
	}
}
