package lua

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	glua "github.com/yuin/gopher-lua"

	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// The tables built by the table builder (tables.go) must behave exactly as
// the tables RawSetString builds.

// statusFixture has statuses of one shape (members in different orders),
// of another shape, escapes, numbers of every kind, nulls and empties.
var statusFixture = []workv1alpha2.AggregatedStatusItem{
	{ClusterName: "m1", Applied: true, Health: workv1alpha2.ResourceHealthy,
		Status: raw(`{"replicas":3,"ready":2,"msg":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00 \ud800 \udc00x","conditions":[{"type":"A","status":"True"},null,{}],"empty":{},"none":[],"nul":null}`)},
	{ClusterName: "m2", Applied: true, Health: workv1alpha2.ResourceHealthy,
		Status: raw(`{"replicas":1,"ready":1,"msg":"plain ☃","conditions":[],"empty":{},"none":[],"nul":null}`)},
	{ClusterName: "m3", AppliedMessage: "failed", Health: workv1alpha2.ResourceUnknown,
		Status: raw(`{"ready":0,"replicas":-0,"msg":"","conditions":[],"empty":{"x":null},"none":[null],"nul":null}`)},
	{ClusterName: "m4", Status: raw(`{"n":[0,-0,1,-1,1.5,-2.25,1e2,1E-3,123456789012345,-123456789012345,1234567890123456,12345678901234567890]}`)},
	{ClusterName: "m5", Status: raw(`{"dup":1,"dup":2,"gone":3,"gone":null,"back":null,"back":4}`)},
	{ClusterName: "m6", Status: raw(`"scalar"`)},
	{ClusterName: "m7"},
}

// keysOf is Lua returning the keys of a table in pairs() order.
const keysOf = `local function keys(t) local ks = {} for k in pairs(t) do ks[#ks + 1] = tostring(k) end return table.concat(ks, ",") end
`

func TestStatusItemTablesAreInvisible(t *testing.T) {
	exprs := map[string]string{
		"whole":        `items`,
		"count":        `#items`,
		"ipairs":       `(function() local n = {} for i, it in ipairs(items) do n[i] = it.clusterName end return n end)()`,
		"keys":         `{keys(items[1]), keys(items[1].status), keys(items[2].status), keys(items[3].status), keys(items[5].status)}`,
		"values":       `{items[1].status.replicas, items[2].status.msg, items[5].status.dup, items[5].status.gone == nil, items[5].status.back}`,
		"missing":      `{items[1].status.zzz == nil, items[7].status == nil, items[6].status}`,
		"add":          `(function() local s = items[1].status s.zz = 1 s.aa = 2 return {keys(s), keys(items[2].status), s.zz + s.aa} end)()`,
		"addToItem":    `(function() items[2].extra = true return {keys(items[2]), keys(items[1])} end)()`,
		"rewrite":      `(function() local s = items[2].status s.ready = 10 s.msg = nil return {keys(s), s.ready, keys(items[1].status)} end)()`,
		"deleteReadd":  `(function() local s = items[1].status s.ready = nil s.zz = 0 s.ready = 5 return {keys(s), s.ready} end)()`,
		"iterateWrite": `(function() local s = items[2].status for k, v in pairs(s) do if type(v) == "number" then s[k] = v * 2 end end return s end)()`,
		"numericKey":   `(function() local s = items[1].status s[1] = "x" return {#s, s[1], keys(s)} end)()`,
		"next":         `(function() local s = items[3].status local k = next(s) local k2 = next(s, k) return {k, k2} end)()`,
		"identity":     `{items[1].status == items[1].status, items[1].status == items[2].status, type(items[1].status), string.sub(tostring(items[1].status), 1, 6)}`,
		"numbers":      `(function() local n = items[4].status.n local out = {} for i, v in ipairs(n) do out[i] = tostring(v) end return {table.concat(out, " "), 1 / n[2] < 0, 1 / n[1] > 0} end)()`,
		"escapes":      `{items[1].status.msg, string.len(items[1].status.msg), items[2].status.msg}`,
		"nestedEmpty":  `{next(items[1].status.empty) == nil, #items[1].status.none, #items[1].status.conditions, next(items[3].status.empty) == nil, #items[3].status.none}`,
		"sort":         `(function() local l = items[1].status.conditions table.insert(l, {type = "B"}) return #l end)()`,
		"errorNil":     `{pcall(function() items[1].status[nil] = 1 end)}`,
		"errorNaN":     `{pcall(function() items[1].status[0/0] = 1 end)}`,
		"errorNilOld":  `{pcall(function() local t = {a = 1} t[nil] = 1 end)}`,
		"unpack":       `{unpack(items[4].status.n, 1, 3)}`,
		"concat":       `table.concat({items[1].clusterName, items[2].clusterName, tostring(items[1].applied), tostring(items[3].applied), items[3].appliedMessage}, "/")`,
	}
	vm := newVM(t, luavm.Options{PoolSize: 1})
	tmpl := obj(t, `{"kind":"X"}`)
	for name, expr := range exprs {
		body := keysOf + "return {kind = \"X\", v = " + expr + "}"
		s := luavm.NewScript(ric, "function AggregateStatus(desired, items)\n"+body+"\nend")
		// Twice: the second call reuses the shapes and maps of the first.
		for round := 0; round < 2; round++ {
			got, gotErr := "", error(nil)
			out, err := vm.AggregateStatus(ctx, s, tmpl, statusFixture)
			if err != nil {
				gotErr = err
			} else {
				got = toJSON(t, out.Object)
			}
			want, wantErr := eagerItems(t, statusFixture, body)
			if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && !strings.Contains(gotErr.Error(), wantErr.Error())) {
				t.Errorf("%s: error %v, plain tables %v", name, gotErr, wantErr)
				continue
			}
			if got != want {
				t.Errorf("%s (call %d):\nbuilt %s\nplain %s", name, round+1, got, want)
			}
		}
	}
}

// eagerItems runs body with the items converted through their JSON into
// tables built with RawSetString, in a plain state, and returns the JSON
// the result decodes to (as an object, without references).
func eagerItems(t *testing.T, items []workv1alpha2.AggregatedStatusItem, body string) (string, error) {
	t.Helper()
	L, st := plainState(t)
	data, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	var g any
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	lv := plainTables(L, g)
	L.SetGlobal("items", lv)
	fn, err := L.Load(strings.NewReader("function AggregateStatus(items)\n"+body+"\nend"), ric)
	if err != nil {
		t.Fatal(err)
	}
	L.Push(fn)
	if err := L.PCall(0, 0, nil); err != nil {
		t.Fatal(err)
	}
	L.Push(L.GetGlobal("AggregateStatus"))
	L.Push(lv)
	if err := L.PCall(1, 1, nil); err != nil {
		return "", err
	}
	out, err := st.DecodeObject(L.Get(-1).(*glua.LTable))
	if err != nil {
		return "", err
	}
	return toJSON(t, out.Object), nil
}

func TestReusedStatusTablesAreNotVisible(t *testing.T) {
	vm := newVM(t, luavm.Options{PoolSize: 1})
	tmpl := obj(t, `{"kind":"X"}`)
	keep := luavm.NewScript("keep", `function AggregateStatus(desired, items)
  if leaked == nil then leaked = items end
  desired.status = {n = #items, first = items[1].status.replicas, leakedFirst = leaked[1].status and leaked[1].status.replicas or "gone", leakedKeys = next(leaked[1]) == nil}
  return desired
end`)
	first := []workv1alpha2.AggregatedStatusItem{{ClusterName: "a", Status: raw(`{"replicas":1}`)}}
	second := []workv1alpha2.AggregatedStatusItem{{ClusterName: "b", Status: raw(`{"replicas":2}`)}}
	out, err := vm.AggregateStatus(ctx, keep, tmpl, first)
	if err != nil || toJSON(t, out.Object["status"]) != `{"first":1,"leakedFirst":1,"leakedKeys":false,"n":1}` {
		t.Fatalf("first call: %v %v", out, err)
	}
	// Globals do not outlive a call: the second call cannot see the
	// tables of the first (which the state reuses).
	out, err = vm.AggregateStatus(ctx, keep, tmpl, second)
	if err != nil || toJSON(t, out.Object["status"]) != `{"first":2,"leakedFirst":2,"leakedKeys":false,"n":1}` {
		t.Fatalf("second call: %v %v", out, err)
	}
}

func TestMainChunkHasNoArgTable(t *testing.T) {
	// The "arg" table gopher-lua no longer builds for the main chunk was
	// never reachable: arg is an unset global there, and ... still works.
	vm := newVM(t, luavm.Options{})
	for src, want := range map[string]string{
		"local a, b = arg, nil\nfunction ReflectStatus(obj) return {argIsNil = a == nil, bIsNil = b == nil} end":     `{"argIsNil":true,"bIsNil":true}`,
		"local n = select(\"#\", ...)\nfunction ReflectStatus(obj) return {n = n} end":                               `{"n":0}`,
		"function ReflectStatus(obj) return {argIsNil = arg == nil, f = (function(...) return arg.n end)(1, 2)} end": `{"argIsNil":true,"f":2}`,
	} {
		raw, err := vm.ReflectStatus(ctx, luavm.NewScript(ric, src), obj(t, `{"kind":"X"}`))
		if err != nil || string(raw.Raw) != want {
			t.Errorf("%s: got %s, %v; want %s", src, raw.Raw, err, want)
		}
	}
}

func TestStatusItemTablesConcurrently(t *testing.T) {
	// States are pooled: their shapes, interned strings and reused maps
	// must never leak between concurrent calls.
	vm := newVM(t, luavm.Options{PoolSize: 3})
	tmpl := obj(t, `{"kind":"X"}`)
	s := luavm.NewScript(ric, keysOf+`function AggregateStatus(desired, items)
  local out = {}
  for i, it in ipairs(items) do
    if type(it.status) == "table" then it.status.seen = i end
    out[i] = it.clusterName .. ":" .. keys(it) .. ":" .. (type(it.status) == "table" and keys(it.status) or tostring(it.status))
  end
  desired.status = {items = out}
  return desired
end`)
	out, err := vm.AggregateStatus(ctx, s, tmpl, statusFixture)
	if err != nil {
		t.Fatal(err)
	}
	want := toJSON(t, out.Object)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				out, err := vm.AggregateStatus(ctx, s, tmpl, statusFixture)
				if err != nil {
					errs <- err.Error()
					return
				}
				data, _ := json.Marshal(out.Object)
				if string(data) != want {
					errs <- string(data)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("got %s\nwant %s", e, want)
	}
}
