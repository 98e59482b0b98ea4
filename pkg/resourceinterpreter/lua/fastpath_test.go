package lua

import (
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	luavm "github.com/propel-mc/propel/pkg/resourceinterpreter/lua/vm"
	"github.com/propel-mc/propel/pkg/resourceinterpreter/native"
)

// The fast paths must give what the general conversions give.

func TestPodMemoAndTypedResults(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	d := obj(t, deployment)
	want := native.AccuratePodRequirements(podTemplate(t))
	plain := luavm.NewScript(ric, `local kube = require("kube")
function GetReplicas(obj) return 1, kube.accuratePodRequirements(obj.spec.template) end`)
	for i := 0; i < 3; i++ {
		_, req, err := vm.GetReplicas(ctx, plain, d)
		if err != nil || !apiequality.Semantic.DeepEqual(req, want) {
			t.Fatalf("call %d: %s %v", i, toJSON(t, req), err)
		}
		req.ResourceRequest = nil // callers may modify what they get
	}
	if n := reqLen(vm); n != 1 {
		t.Errorf("memo holds %d templates, want 1", n)
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
	_, req, err = vm.GetReplicas(ctx, plain, d2)
	if err != nil || req.ResourceRequest.Cpu().String() != "2250m" || reqLen(vm) != 2 {
		t.Errorf("second template: %s %v, %d entries", toJSON(t, req), err, reqLen(vm))
	}
}
