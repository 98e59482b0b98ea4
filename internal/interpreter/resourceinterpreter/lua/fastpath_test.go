package lua

import (
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
)

// The fast paths must give what the general conversions give.

func TestPodMemoAndTypedResults(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	d := obj(t, deployment)
	want := native.AccuratePodRequirements(podTemplate(t))
	// A template passed on untouched is read in place: nothing to remember.
	plain := luavm.NewScript(ric, `local kube = require("kube")
function GetReplicas(obj) return 1, kube.accuratePodRequirements(obj.spec.template) end`)
	// One the script has opened goes through its canonical JSON and the memo.
	opened := luavm.NewScript(ric+"-opened", `local kube = require("kube")
function GetReplicas(obj)
  local t = obj.spec.template
  local _ = t.metadata
  return 1, kube.accuratePodRequirements(t)
end`)
	for _, tc := range []struct {
		script  luavm.Script
		entries int
	}{{plain, 0}, {opened, 1}} {
		for i := 0; i < 3; i++ {
			_, req, err := vm.GetReplicas(ctx, tc.script, d)
			if err != nil || !apiequality.Semantic.DeepEqual(req, want) {
				t.Fatalf("%s call %d: %s %v", tc.script.Name, i, toJSON(t, req), err)
			}
			req.ResourceRequest = nil // callers may modify what they get
		}
		if n := reqLen(vm); n != tc.entries {
			t.Errorf("after %s: memo holds %d templates, want %d", tc.script.Name, n, tc.entries)
		}
	}
	// A modified result is decoded, not taken from the memo.
	edited := luavm.NewScript(ric, `local kube = require("kube")
function GetReplicas(obj)
  local r = kube.accuratePodRequirements(obj.spec.template)
  r.resourceRequest.cpu = "3"
  return 1, r
end`)
	_, req, err := vm.GetReplicas(ctx, edited, d)
	if err != nil || req.ResourceRequest.Cpu().String() != "3" || req.ResourceRequest.Memory().String() != "64Mi" {
		t.Errorf("edited: %s %v", toJSON(t, req), err)
	}
	// Another template is another entry with another result.
	d2 := d.DeepCopy()
	c := d2.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[1].(map[string]any)
	c["resources"] = map[string]any{"requests": map[string]any{"cpu": "2"}}
	for _, tc := range []struct {
		script  luavm.Script
		entries int
	}{{plain, 1}, {opened, 2}} {
		_, req, err = vm.GetReplicas(ctx, tc.script, d2)
		if err != nil || req.ResourceRequest.Cpu().String() != "2250m" || reqLen(vm) != tc.entries {
			t.Errorf("second template, %s: %s %v, %d entries, want %d", tc.script.Name, toJSON(t, req), err, reqLen(vm), tc.entries)
		}
	}
}
