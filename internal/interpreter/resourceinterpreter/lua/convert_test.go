package lua

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func TestNullsVanishInLua(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	o := &unstructured.Unstructured{Object: map[string]any{
		"kind": "X",
		"spec": map[string]any{"a": nil, "b": int64(1), "list": []any{int64(1), nil, int64(3)}, "emptyList": []any{}, "emptyObj": map[string]any{}},
	}}
	s := luavm.NewScript(ric, `function ReflectStatus(obj)
  local s = obj.spec
  return {aIsNil = s.a == nil, n = #s.list, second = s.list[2], emptyList = #s.emptyList, emptyObj = next(s.emptyObj) == nil}
end`)
	raw, err := vm.ReflectStatus(ctx, s, o)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(raw.Raw), `{"aIsNil":true,"emptyList":0,"emptyObj":true,"n":2,"second":3}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestNumbersBecomeInt64WhenIntegral(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	s := luavm.NewScript(ric, `function ReviseReplica(obj, r)
  obj.spec = {a = 3, b = 1.5, c = -0, d = 2^53 + 2, e = 1e19, f = 2^62, g = r}
  return obj
end`)
	out, err := vm.ReviseReplica(ctx, s, obj(t, `{"kind":"X"}`), 4)
	if err != nil {
		t.Fatal(err)
	}
	spec := out.Object["spec"].(map[string]any)
	want := map[string]any{"a": int64(3), "b": 1.5, "c": int64(0), "d": int64(1<<53 + 2), "e": 1e19, "f": int64(4611686018427388000), "g": int64(4)} // f: JSON renders 2^62 as 4611686018427388000
	for k, w := range want {
		if spec[k] != w {
			t.Errorf("%s = %#v (%T), want %#v (%T)", k, spec[k], spec[k], w, w)
		}
	}
}

func TestEmptyTableRepair(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	desired := obj(t, `{"kind":"X","spec":{"selector":{},"ports":[],"containers":[{"name":"a","env":[]},{"name":"b","resources":{}}],"annotations":{"a.b/c:d":{}}}}`)
	observed := obj(t, `{"kind":"X","status":{"conditions":[]}}`)
	s := luavm.NewScript(ric, `function Retain(d, o)
  d.spec.containers[1].env = {}
  d.spec.containers[2].resources = {}
  d.spec.containers[2].env = {}
  d.spec.unknown = {}
  d.spec.list = {{}, 1}
  d.status = {conditions = {}, other = {}}
  return d
end`)
	out, err := vm.Retain(ctx, s, desired, observed)
	if err != nil {
		t.Fatal(err)
	}
	// Paths ignore array indices: containers.env is an empty array in a
	// reference, containers.resources an empty object; keys with '.' and
	// ':' are matched literally; unknown empties are deleted.
	want := `{"kind":"X","spec":{"annotations":{"a.b/c:d":{}},"containers":[{"env":[],"name":"a"},{"env":[],"name":"b","resources":{}}],"list":[1],"ports":[],"selector":{}},"status":{"conditions":[]}}`
	if got := toJSON(t, out.Object); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	// Without references every nested empty table is removed; the root
	// becomes {} for struct targets and stays [] for slice targets.
	if got := mustEval(t, vm, `return {a = {}, b = {c = {}}, d = {{}, {}}}`); got != `{"b":{},"d":[]}` {
		t.Errorf("no references: %s", got)
	}
	if got := mustEval(t, vm, `return {}`); got != `{}` {
		t.Errorf("root struct: %s", got)
	}
	deps, err := vm.GetDependencies(ctx, luavm.NewScript(ric, "function GetDependencies(o) return {} end"), obj(t, `{"kind":"X"}`))
	if err != nil || deps == nil || len(deps) != 0 {
		t.Errorf("root slice: %#v %v", deps, err)
	}
}

func TestEncodingErrors(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	cases := map[string]string{
		`return {[1] = "a", [3] = "c"}`:                          "cannot encode sparse array",
		`return {a = {[2] = 1}}`:                                 "cannot encode sparse array",
		`return {a = {[1.5] = 1}}`:                               "cannot encode sparse array",
		`return {1, a = 2}`:                                      "cannot encode mixed or invalid key types",
		`return {[true] = 1}`:                                    "cannot encode mixed or invalid key types",
		`return {f = function() end}`:                            "cannot encode function to JSON",
		`local t = {} t.self = t return t`:                       "cannot encode recursively nested tables to JSON",
		`return {n = 0/0}`:                                       "unsupported value: NaN",
		`return {n = 1/0}`:                                       "unsupported value: +Inf",
		`local t = {} for i = 1, 2000 do t = {t} end return {t}`: "nested deeper than 1000 levels",
	}
	for body, msg := range cases {
		_, err := eval(t, vm, body)
		wantErr(t, err, `customization "my-ric" InterpretStatus`, msg)
	}
	// A table shared by two fields is not a cycle.
	if got := mustEval(t, vm, `local t = {x = 1} return {a = t, b = t}`); got != `{"a":{"x":1},"b":{"x":1}}` {
		t.Errorf("shared table: %s", got)
	}
	// Arrays are dense whatever the insertion order.
	if got := mustEval(t, vm, `local t = {} t[3] = "c" t[2] = "b" t[1] = "a" return {t = t}`); got != `{"t":["a","b","c"]}` {
		t.Errorf("out of order array: %s", got)
	}
}

func TestMissingKind(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	for _, body := range []string{`return {spec = {}}`, `return {}`, `return {kind = 3}`, `return {kind = ""}`} {
		_, err := vm.ReviseReplica(ctx, luavm.NewScript(ric, "function ReviseReplica(obj, r)\n"+body+"\nend"), obj(t, `{"kind":"X"}`), 1)
		wantErr(t, err, "Object 'Kind' is missing in")
	}
	_, err := vm.ReviseReplica(ctx, luavm.NewScript(ric, "function ReviseReplica(obj, r)\nreturn {1, 2}\nend"), obj(t, `{"kind":"X"}`), 1)
	wantErr(t, err, "cannot unmarshal array")
}

func TestPairsOrderIsSorted(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	o := obj(t, `{"kind":"X","metadata":{"labels":{"d":"4","b":"2","a":"1","c":"3","e":"5"}}}`)
	s := luavm.NewScript(ric, `function ReflectStatus(obj)
  local keys = {}
  for k in pairs(obj.metadata.labels) do keys[#keys + 1] = k end
  return {keys = table.concat(keys, ",")}
end`)
	for i := 0; i < 5; i++ {
		raw, err := vm.ReflectStatus(ctx, s, o)
		if err != nil || string(raw.Raw) != `{"keys":"a,b,c,d,e"}` {
			t.Fatalf("got %s, %v", raw.Raw, err)
		}
	}
}

func TestEmptyStringIsAValue(t *testing.T) {
	// Karmada drops the empty tables of a result and keeps the empty
	// string: status = {active = {}, type = "", lastScheduleTime = {}}
	// becomes status: {type: ""}.
	vm := newVM(t, luavm.Options{})
	s := luavm.NewScript(ric, `function AggregateStatus(desired, items)
  desired.status = {active = {}, type = "", lastScheduleTime = {}}
  return desired
end`)
	items := []workv1alpha2.AggregatedStatusItem{{ClusterName: "a", Status: raw(`{"active":[]}`)}}
	out, err := vm.AggregateStatus(ctx, s, obj(t, `{"kind":"X","status":{"active":[{"name":"j"}]}}`), items)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toJSON(t, out.Object), `{"kind":"X","status":{"type":""}}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
