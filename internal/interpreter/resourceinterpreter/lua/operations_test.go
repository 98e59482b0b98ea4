package lua

import (
	"context"
	"errors"
	"testing"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

var ctx = context.Background()

func TestGetReplicas(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	d := obj(t, deployment)
	cases := []struct {
		name, script string
		replicas     int32
		requires     string
		err          string
	}{
		{name: "number and table", script: `return obj.spec.replicas, {resourceRequest = {cpu = "1"}, nodeClaim = {nodeSelector = {a = "b"}}}`,
			replicas: 3, requires: `{"nodeClaim":{"nodeSelector":{"a":"b"}},"resourceRequest":{"cpu":"1"}}`},
		{name: "nil requirements", script: `return 2, nil`, replicas: 2, requires: "null"},
		{name: "only one value", script: `return 4`, replicas: 4, requires: "null"},
		{name: "integral float", script: `return 2.0`, replicas: 2, requires: "null"},
		{name: "largest", script: `return 2147483647`, replicas: 2147483647, requires: "null"},
		{name: "fraction", script: `return 2.5`, err: "returned replicas 2.5: replicas must be an integer between 0 and 2147483647"},
		{name: "infinity", script: `return math.huge`, err: "returned replicas 1.7976931348623157e+308: replicas must be an integer"},
		{name: "minus infinity", script: `return -math.huge`, err: "returned replicas -1.7976931348623157e+308: replicas must be an integer"},
		{name: "NaN", script: `return 0/0`, err: "returned replicas NaN: replicas must be an integer"},
		{name: "division by zero", script: `return 1/0`, err: "returned replicas +Inf: replicas must be an integer"},
		{name: "negative", script: `return -1`, err: "returned replicas -1: replicas must be an integer"},
		{name: "above int32", script: `return 2147483648`, err: "returned replicas 2.147483648e+09: replicas must be an integer"},
		{name: "empty table requirements", script: `return 1, {}`, replicas: 1, requires: `{}`},
		{name: "quantities as numbers", script: `return 1, {resourceRequest = {cpu = 2}}`, replicas: 1, requires: `{"resourceRequest":{"cpu":"2"}}`},
		{name: "replica not a number", script: `return "3"`, err: `result type string is not number`},
		{name: "replica nil", script: `return nil`, err: `result type nil is not number`},
		{name: "requirements not a table", script: `return 1, "x"`, err: "expect the returned requires type is table but got string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := luavm.NewScript(ric, "function GetReplicas(obj)\n  "+c.script+"\nend")
			n, req, err := vm.GetReplicas(ctx, s, d)
			if c.err != "" {
				wantErr(t, err, `customization "my-ric" InterpretReplica: `, c.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n != c.replicas || toJSON(t, req) != c.requires {
				t.Errorf("got %d %s, want %d %s", n, toJSON(t, req), c.replicas, c.requires)
			}
		})
	}
}

func TestGetComponents(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	d := obj(t, deployment)
	run := func(body string) ([]workv1alpha2.Component, error) {
		return vm.GetComponents(ctx, luavm.NewScript(ric, "function GetComponents(obj)\n"+body+"\nend"), d)
	}
	comps, err := run(`return {{name = "main", replicas = obj.spec.replicas, replicaRequirements = {resourceRequest = {cpu = "500m"}}}, {name = "aux", replicas = 1}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"name":"main","replicas":3,"replicaRequirements":{"resourceRequest":{"cpu":"500m"}}},{"name":"aux","replicas":1}]`
	if got := toJSON(t, comps); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if comps, err := run(`return nil`); err != nil || comps != nil {
		t.Errorf("nil: got %v, %v", comps, err)
	}
	if comps, err := run(`return {}`); err != nil || comps == nil || len(comps) != 0 {
		t.Errorf("empty: got %#v, %v", comps, err)
	}
	_, err = run(`return 3`)
	wantErr(t, err, "failed to run 'GetComponents' script: expected result type 'table' or 'nil' from GetComponents, but got 'number'")
	_, err = run(`error("boom")`)
	wantErr(t, err, `customization "my-ric" InterpretComponent: failed to run 'GetComponents' script: my-ric:2: boom`)
}

func TestReviseReplica(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	in := obj(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a"},"spec":{"replicas":1,"strategy":{}}}`)
	s := luavm.NewScript(ric, `function ReviseReplica(obj, desired)
  obj.spec.replicas = desired
  return obj
end`)
	out, err := vm.ReviseReplica(ctx, s, in, 7)
	if err != nil {
		t.Fatal(err)
	}
	// The input's empty strategy object is a reference: it stays {}.
	if got, want := toJSON(t, out.Object), `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a"},"spec":{"replicas":7,"strategy":{}}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, ok := out.Object["spec"].(map[string]any)["replicas"].(int64); !ok {
		t.Errorf("replicas is %T, want int64", out.Object["spec"].(map[string]any)["replicas"])
	}
	if in.Object["spec"].(map[string]any)["replicas"] != int64(1) {
		t.Error("the input object was modified")
	}
	_, err = vm.ReviseReplica(ctx, luavm.NewScript(ric, "function ReviseReplica(obj, r)\n  return r\nend"), in, 1)
	wantErr(t, err, "expect the returned requires type is table but got number")
}

func TestRetain(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	desired := obj(t, `{"apiVersion":"v1","kind":"Thing","spec":{"a":1,"emptyObj":{},"list":[]}}`)
	observed := obj(t, `{"apiVersion":"v1","kind":"Thing","spec":{"a":2,"member":{},"ports":[]}}`)
	s := luavm.NewScript(ric, `function Retain(desired, observed)
  desired.spec.a = observed.spec.a
  desired.spec.member = {}
  desired.spec.ports = {}
  desired.spec.other = {}
  return desired
end`)
	out, err := vm.Retain(ctx, s, desired, observed)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"v1","kind":"Thing","spec":{"a":2,"emptyObj":{},"list":[],"member":{},"ports":[]}}`
	if got := toJSON(t, out.Object); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestAggregateStatus(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	tmpl := obj(t, `{"apiVersion":"example.io/v1","kind":"Workload","metadata":{"name":"w"},"spec":{"paused":{}},"status":{}}`)
	items := []workv1alpha2.AggregatedStatusItem{
		{ClusterName: "m1", Status: raw(`{"readyReplicas":2,"conditions":[]}`), Applied: true, Health: workv1alpha2.ResourceHealthy},
		{ClusterName: "m2", Status: raw(`{"readyReplicas":1}`)},
		{ClusterName: "m3"},
	}
	s := luavm.NewScript(ric, `function AggregateStatus(desired, items)
  local ready, names = 0, {}
  for i, item in ipairs(items) do
    if item.status ~= nil then ready = ready + item.status.readyReplicas end
    names[i] = item.clusterName .. ":" .. tostring(item.applied) .. ":" .. tostring(item.health)
  end
  desired.status = {readyReplicas = ready, clusters = names, conditions = {}}
  return desired
end`)
	out, err := vm.AggregateStatus(ctx, s, tmpl, items)
	if err != nil {
		t.Fatal(err)
	}
	// No references: the empty conditions and the template's empty spec.paused vanish.
	want := `{"apiVersion":"example.io/v1","kind":"Workload","metadata":{"name":"w"},"spec":{},"status":{"clusters":["m1:true:Healthy","m2:nil:nil","m3:nil:nil"],"readyReplicas":3}}`
	if got := toJSON(t, out.Object); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	out, err = vm.AggregateStatus(ctx, luavm.NewScript(ric, `function AggregateStatus(desired, items)
  desired.status = {n = items == nil and -1 or #items}
  return desired
end`), tmpl, nil)
	if err != nil || toJSON(t, out.Object["status"]) != `{"n":-1}` {
		t.Errorf("nil items: got %v, %v", out, err)
	}
}

func TestReflectStatus(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	o := obj(t, `{"kind":"X","status":{"b":2,"a":"x","nested":{"containerState":{}},"f":1.5}}`)
	run := func(body string) (string, error) {
		raw, err := vm.ReflectStatus(ctx, luavm.NewScript(ric, "function ReflectStatus(obj)\n"+body+"\nend"), o)
		if err != nil {
			return "", err
		}
		return string(raw.Raw), nil
	}
	if got, err := run(`return obj.status`); err != nil || got != `{"a":"x","b":2,"f":1.5,"nested":{}}` {
		t.Errorf("got %s, %v", got, err)
	}
	if got, err := run(`return {}`); err != nil || got != `{}` {
		t.Errorf("empty: got %s, %v", got, err)
	}
	_, err := run(`return nil`)
	wantErr(t, err, "expect the returned replica type is table but got nil")
	_, err = run(`return true`)
	wantErr(t, err, "expect the returned replica type is table but got boolean")
}

func TestInterpretHealth(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	o := obj(t, `{"kind":"X","status":{"ready":true}}`)
	run := func(body string) (bool, error) {
		return vm.InterpretHealth(ctx, luavm.NewScript(ric, "function InterpretHealth(obj)\n"+body+"\nend"), o)
	}
	if h, err := run(`return obj.status.ready`); err != nil || !h {
		t.Errorf("got %v, %v", h, err)
	}
	if h, err := run(`return false`); err != nil || h {
		t.Errorf("got %v, %v", h, err)
	}
	_, err := run(`local x = 1`)
	wantErr(t, err, "boolean but got nil")
	_, err = run(`return 1`)
	wantErr(t, err, "boolean but got number")
}

func TestGetDependencies(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	o := obj(t, `{"kind":"X","metadata":{"namespace":"ns"}}`)
	s := luavm.NewScript(ric, `function GetDependencies(obj)
  return {{apiVersion = "v1", kind = "Secret", namespace = obj.metadata.namespace, name = "s"},
          {apiVersion = "v1", kind = "ConfigMap", namespace = "ns", labelSelector = {matchLabels = {a = "b"}}}}
end`)
	deps, err := vm.GetDependencies(ctx, s, o)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"apiVersion":"v1","kind":"Secret","namespace":"ns","name":"s"},{"apiVersion":"v1","kind":"ConfigMap","namespace":"ns","labelSelector":{"matchLabels":{"a":"b"}}}]`
	if got := toJSON(t, deps); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	deps, err = vm.GetDependencies(ctx, luavm.NewScript(ric, "function GetDependencies(obj)\n  return {}\nend"), o)
	if err != nil || len(deps) != 0 {
		t.Errorf("empty: %v %v", deps, err)
	}
	_, err = vm.GetDependencies(ctx, luavm.NewScript(ric, "function GetDependencies(obj)\n  return nil\nend"), o)
	wantErr(t, err, "expect the returned requires type is table but got nil")
	_, err = vm.GetDependencies(ctx, luavm.NewScript(ric, `function GetDependencies(obj)
  local t = {} for i = 1, 5000 do t[i] = {kind = "ConfigMap"} end return t
end`), o)
	wantErr(t, err, `customization "my-ric" InterpretDependency: `, "invalid dependencies: 5000 references: an answer may name at most 512 dependencies")
	if !errors.Is(err, layer.ErrTooManyDependencies) {
		t.Errorf("%v does not wrap layer.ErrTooManyDependencies", err)
	}
}

func TestEntryFunctionLookup(t *testing.T) {
	vm := newVM(t, luavm.Options{PoolSize: 1})
	o := obj(t, `{"kind":"X"}`)
	_, err := vm.InterpretHealth(ctx, luavm.NewScript(ric, "local x = 1"), o)
	wantErr(t, err, `customization "my-ric" InterpretHealth: not found function InterpretHealth`)
	_, err = vm.InterpretHealth(ctx, luavm.NewScript(ric, "InterpretHealth = 3"), o)
	wantErr(t, err, "InterpretHealth is not a function: number")
	// A global left in the (single) pooled state by another script does
	// not stand in for a missing entry function.
	if _, err := vm.InterpretHealth(ctx, luavm.NewScript("other", "function InterpretHealth(o) return true end"), o); err != nil {
		t.Fatal(err)
	}
	_, err = vm.InterpretHealth(ctx, luavm.NewScript(ric, "local y = 2"), o)
	wantErr(t, err, "not found function InterpretHealth")
	_, err = vm.InterpretHealth(ctx, luavm.NewScript(ric, "function InterpretHealth(o)\n  error({code = 1})\nend"), o)
	wantErr(t, err, `customization "my-ric" InterpretHealth`)
	var se *luavm.ScriptError
	if !errors.As(err, &se) || se.Customization != ric {
		t.Errorf("error %v is not a luavm.ScriptError for %s", err, ric)
	}
}

func TestTopLevelChunkRunsEveryCall(t *testing.T) {
	for _, disable := range []bool{false, true} {
		vm := newVM(t, luavm.Options{PoolSize: 1, DisableCache: disable})
		s := luavm.NewScript(ric, `counter = (counter or 0) + 1
local kube = require("kube")
function ReflectStatus(obj) return {n = counter, add = kube.resourceAdd("1", "2")} end`)
		for want := 1; want <= 3; want++ {
			raw, err := vm.ReflectStatus(ctx, s, obj(t, `{"kind":"X"}`))
			if err != nil {
				t.Fatal(err)
			}
			// counter is 1 every time: globals do not outlive a call.
			if got := string(raw.Raw); got != `{"add":"3","n":1}` {
				t.Errorf("cache disabled=%v call %d: %s", disable, want, got)
			}
		}
	}
}

func raw(s string) *runtimeRaw { return &runtimeRaw{Raw: []byte(s)} }
