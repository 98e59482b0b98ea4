package lua

import (
	"encoding/json"
	"reflect"
	"testing"

	glua "github.com/yuin/gopher-lua"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/pkg/resourceinterpreter/native"
)

// The fast paths must give what the general conversions give.

func sandboxState(t testing.TB) *glua.LState {
	t.Helper()
	vm := newVM(t, Options{PoolSize: 1})
	st, err := vm.pool.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.budget.begin(ctx)
	t.Cleanup(func() {
		st.budget.end()
		vm.pool.put(st)
	})
	return st.L
}

func luaValue(t *testing.T, L *glua.LState, expr string) glua.LValue {
	t.Helper()
	if err := L.DoString("__v = " + expr); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return L.GetGlobal("__v")
}

func TestJSONWriterMatchesEncoder(t *testing.T) {
	L := sandboxState(t)
	for _, expr := range []string{
		`{a = 1, b = "x\n\"q\"<&>", c = true, d = {1, 2, {}}, e = {}, f = {g = {}}, h = 1e21, i = 1e-7, j = -0.5, k = 123456789012}`,
		`{list = {{}, {}}, s = "\1\31 é"}`,
		`{nested = {deeper = {deepest = {1.5, "x", false}}}}`,
		`{}`,
		`{{}, {a = 1}}`,
	} {
		v := luaValue(t, L, expr)
		for _, sh := range []shape{structShape, sliceShape} {
			w := writerFor(L)
			w.sorted = true
			if err := w.writeRoot(v, sh); err != nil {
				t.Fatalf("%s: %v", expr, err)
			}
			var fast any
			if err := json.Unmarshal(w.buf, &fast); err != nil {
				t.Fatalf("%s: writer produced %s: %v", expr, w.buf, err)
			}
			tree, err := fromLua(L, v.(*glua.LTable), sh, false)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := json.Marshal(tree)
			var slow any
			_ = json.Unmarshal(data, &slow)
			if !reflect.DeepEqual(fast, slow) {
				t.Errorf("%s: writer %s, encoder %s", expr, w.buf, data)
			}
		}
	}
	for _, expr := range []string{`{[1] = 1, [3] = 3}`, `{1, a = 1}`, `{f = print}`, `{n = 0/0}`} {
		w := writerFor(L)
		_, encErr := fromLua(L, luaValue(t, L, expr).(*glua.LTable), structShape, false)
		if err := w.writeRoot(luaValue(t, L, expr), structShape); err == nil || encErr == nil || err.Error() != encErr.Error() {
			t.Errorf("%s: writer error %v, encoder error %v", expr, err, encErr)
		}
	}
}

func TestFastJSONDecoderMatchesEncodingJSON(t *testing.T) {
	L := sandboxState(t)
	for _, doc := range []string{
		`{"b":2,"a":1,"n":null,"l":[1,null,"x",{"z":[]}],"t":true,"f":false}`,
		`{"num":[0,-0,1e2,1.5E-3,-12.25,12345678901234567890]}`,
		`{"dup":1,"dup":2,"nul":3,"nul":null}`,
		`{"u":"héllo ☃","esc":"a\"b\\c\n\u00e9"}`,
		`[1,2,3]`, `"s"`, `12`, ` {"a" : [ ] , "b" : { } } `,
		"{\"bad\":\"\xff\"}",
	} {
		var g any
		if err := json.Unmarshal([]byte(doc), &g); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		slow, err := toLua(L, g)
		if err != nil {
			t.Fatal(err)
		}
		fast, err := jsonToLuaFast(L, []byte(doc))
		if err != nil {
			if err != errSlowPath {
				t.Errorf("%s: %v", doc, err)
			}
			continue // encoding/json takes over
		}
		a, _ := (&encoder{}).value(fast)
		b, _ := (&encoder{}).value(slow)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: fast %v, encoding/json %v", doc, a, b)
		}
	}
	for _, bad := range []string{`{"a":1`, `{"a":1}x`, `[1,]`, `{"a" 1}`, `01`, `-`, `1.`, `tru`} {
		if _, err := jsonToLuaFast(L, []byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestDirectRequirementsMatchJSON(t *testing.T) {
	L := sandboxState(t)
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
		jsonErr := decodeTable(L, tbl, viaJSON)
		req, ok := directRequirements(L, tbl)
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
	vm := newVM(t, Options{})
	d := obj(t, deployment)
	want := native.AccuratePodRequirements(podTemplate(t))
	plain := NewScript(ric, `local kube = require("kube")
function GetReplicas(obj) return 1, kube.accuratePodRequirements(obj.spec.template) end`)
	for i := 0; i < 3; i++ {
		_, req, err := vm.GetReplicas(ctx, plain, d)
		if err != nil || !apiequality.Semantic.DeepEqual(req, want) {
			t.Fatalf("call %d: %s %v", i, toJSON(t, req), err)
		}
		req.ResourceRequest = nil // callers may modify what they get
	}
	if n := vm.memo.requirements.Len(); n != 1 {
		t.Errorf("memo holds %d templates, want 1", n)
	}
	// A modified result is decoded, not taken from the memo.
	edited := NewScript(ric, `local kube = require("kube")
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
	if err != nil || req.ResourceRequest.Cpu().String() != "2250m" || vm.memo.requirements.Len() != 2 {
		t.Errorf("second template: %s %v, %d entries", toJSON(t, req), err, vm.memo.requirements.Len())
	}
}

func TestCanonicalTemplateJSONIgnoresLaziness(t *testing.T) {
	// The memo key of a template must not depend on whether the script
	// touched the template: a proxy and a filled table write the same bytes.
	vm := newVM(t, Options{PoolSize: 1})
	st, err := vm.pool.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.budget.begin(ctx)
	defer func() { st.budget.end(); vm.pool.put(st) }()
	L := st.L
	root, err := objectToLua(L, obj(t, deployment))
	if err != nil {
		t.Fatal(err)
	}
	L.SetGlobal("obj", root)
	if err := L.DoString(`proxy = obj.spec.template`); err != nil {
		t.Fatal(err)
	}
	canonical := func() string {
		L.Push(L.GetGlobal("proxy"))
		defer L.Pop(1)
		return string(templateJSON(L, L.GetTop()))
	}
	lazy := canonical()
	if _, ok := st.budget.lazy.backingOf(L.GetGlobal("proxy").(*glua.LTable)); !ok {
		t.Fatal("the template is not a proxy")
	}
	// Partly read: some members handed out, the proxy itself unfilled.
	if err := L.DoString(`partial = obj.spec.template.spec.containers[1].resources`); err != nil {
		t.Fatal(err)
	}
	if partial := canonical(); partial != lazy {
		t.Errorf("proxy   %s\npartial %s", lazy, partial)
	}
	if err := L.DoString(`local function walk(t) for _, v in pairs(t) do if type(v) == "table" then walk(v) end end end walk(proxy)`); err != nil {
		t.Fatal(err)
	}
	if filled := canonical(); filled != lazy {
		t.Errorf("proxy  %s\nfilled %s", lazy, filled)
	}
}
