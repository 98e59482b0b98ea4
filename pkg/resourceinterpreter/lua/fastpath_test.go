package lua

import (
	"testing"

	glua "github.com/yuin/gopher-lua"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	luavm "github.com/propel-mc/propel/pkg/resourceinterpreter/lua/vm"
	"github.com/propel-mc/propel/pkg/resourceinterpreter/native"
)

// The fast paths must give what the general conversions give.

func TestDirectRequirementsMatchJSON(t *testing.T) {
	L, st := plainState(t)
	direct := 0
	for _, expr := range []string{
		`{resourceRequest = {cpu = "100m", memory = "1Gi"}, nodeClaim = {nodeSelector = {a = "b"}}}`,
		`{resourceRequest = {}, nodeClaim = {}}`,
		`{nodeClaim = {nodeSelector = {}}}`,
		`{namespace = "ns", priorityClassName = "high"}`,
		`{resourceRequest = {cpu = 2}}`,
		`{ResourceRequest = {cpu = "1"}}`,
		`{nodeClaim = {tolerations = {{key = "k", operator = "Exists"}}}}`,
		`{resourceRequest = {cpu = " 1"}}`,
	} {
		tbl := luaValue(t, L, expr).(*glua.LTable)
		viaJSON := &workv1alpha2.ReplicaRequirements{}
		jsonErr := st.DecodeInto(tbl, viaJSON)
		req, ok := directRequirements(st, tbl)
		if !ok {
			continue
		}
		direct++
		if jsonErr != nil || !apiequality.Semantic.DeepEqual(req, viaJSON) {
			t.Errorf("%s: direct %s, JSON %s (%v)", expr, toJSON(t, req), toJSON(t, viaJSON), jsonErr)
		}
	}
	if direct != 4 {
		t.Errorf("the direct path took %d of the cases, want the first 4", direct)
	}
}

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
