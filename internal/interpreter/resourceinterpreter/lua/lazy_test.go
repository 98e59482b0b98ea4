package lua

import (
	"testing"

	glua "github.com/yuin/gopher-lua"

	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
)

// The lazy conversion must be invisible: every way a script can look at a
// table gives what an eagerly converted table gives.

const lazyFixture = `{"kind":"X","spec":{"list":[3,1,2],"map":{"b":2,"a":1,"c":null},"nested":{"deep":{"x":1}},"empty":{},"strs":["x","y"]}}`

func TestLazyTablesAreInvisible(t *testing.T) {
	exprs := map[string]string{
		"len":         `#obj.spec.list`,
		"index":       `obj.spec.list[2]`,
		"missing":     `obj.spec.map.zzz == nil`,
		"nullDropped": `obj.spec.map.c == nil`,
		"pairs":       `(function() local n = 0 for k, v in pairs(obj.spec.map) do n = n + v end return n end)()`,
		"next":        `next(obj.spec.empty) == nil and next(obj.spec.map) ~= nil`,
		"ipairs":      `(function() local s = 0 for i, v in ipairs(obj.spec.list) do s = s + i * v end return s end)()`,
		"unpack":      `select("#", unpack(obj.spec.list))`,
		"concat":      `table.concat(obj.spec.strs, ",")`,
		"getn":        `table.getn(obj.spec.list) + table.maxn(obj.spec.list)`,
		"insert":      `(function() local l = obj.spec.strs table.insert(l, "z") return #l end)()`,
		"remove":      `(function() local l = obj.spec.list return table.remove(l) + #l end)()`,
		"sort":        `(function() local l = obj.spec.list table.sort(l) return l[1] * 100 + l[2] * 10 + l[3] end)()`,
		"assignNew":   `(function() obj.spec.nested.added = 5 return obj.spec.nested.added + obj.spec.nested.deep.x end)()`,
		"assignOld":   `(function() local m = obj.spec.map m.a = 10 return m.a + m.b end)()`,
		"delete":      `(function() local m = obj.spec.map m.a = nil local n = 0 for _ in pairs(m) do n = n + 1 end return n end)()`,
		"identity":    `obj.spec.nested == obj.spec.nested and obj.spec.nested.deep == obj.spec.nested.deep`,
		"type":        `type(obj.spec.nested)`,
		"tostring":    `string.sub(tostring(obj.spec.nested), 1, 6)`,
		"osTime":      `os.time({year = 2024, month = 1, day = 1, hour = 0}) > 0`,
		"method":      `(function() local ok = pcall(function() return obj.spec.map:x() end) return ok end)()`,
		"partialEdit": `(function() local d = obj.spec.nested.deep d.y = 2 return obj.spec end)()`,
		"partialSame": `(function() local n = obj.spec.nested local _ = #obj.spec return n == obj.spec.nested and obj.spec.nested.deep.x end)()`,
		"replaceKept": `(function() local n = obj.spec.nested obj.spec.nested = {z = 1} return {old = n.deep.x, new = obj.spec.nested.z} end)()`,
		"scalarOnly":  `(function() local _ = obj.spec.map.a return obj end)()`,
		// Members read are stored in the proxy: the script changes them there.
		"rewriteRead":    `(function() local m = obj.spec.map local _ = m.a m.a = 5 return {m.a, m} end)()`,
		"removeRead":     `(function() local m = obj.spec.map local _ = m.a m.a = nil return {m.a == nil, m, obj.spec} end)()`,
		"removeReadd":    `(function() local m = obj.spec.map local _ = m.a m.a = nil m.a = 7 return m end)()`,
		"removeAll":      `(function() local m = obj.spec.map local _ = m.a .. m.b m.a = nil m.b = nil return {m = m, e = next(m) == nil, n = #m} end)()`,
		"removeNested":   `(function() local s = obj.spec local n = s.nested s.nested = nil return {n.deep.x, s.nested == nil, obj} end)()`,
		"removeThenLen":  `(function() local s = obj.spec local _ = s.list s.list = nil local k = {} for key in pairs(s) do k[#k + 1] = key end return table.concat(k, ",") end)()`,
		"replaceRead":    `(function() local s = obj.spec local _ = s.strs s.strs = "x" return {s.strs, obj.spec} end)()`,
		"readAfterWrite": `(function() local d = obj.spec.nested.deep local x = d.x d.x = x + 1 return {obj.spec.nested.deep.x, obj} end)()`,
		"nilMember":      `(function() local m = obj.spec.map local c1, c2 = m.c, m.c return {c1 == nil, c2 == nil, m} end)()`,
	}
	vm := newVM(t, luavm.Options{PoolSize: 1})
	o := obj(t, lazyFixture)
	for name, expr := range exprs {
		body := "return {v = " + expr + "}"
		lazy, err := vm.ReflectStatus(ctx, luavm.NewScript(ric, "function ReflectStatus(obj)\n"+body+"\nend"), o)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		eager := eagerEval(t, lazyFixture, body)
		if string(lazy.Raw) != eager {
			t.Errorf("%s: lazy %s, eager %s", name, lazy.Raw, eager)
		}
	}
}

// eagerEval runs body on a fully converted object in a plain gopher-lua
// state (no proxies) and returns the JSON of the result.
func eagerEval(t *testing.T, objJSON, body string) string {
	t.Helper()
	L, st := plainState(t)
	L.SetGlobal("obj", plainTables(L, obj(t, objJSON).Object))
	if err := L.DoString("__r = (function() " + body + " end)()"); err != nil {
		t.Fatalf("eager %s: %v", body, err)
	}
	raw, err := st.DecodeRaw(L.GetGlobal("__r").(*glua.LTable))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw.Raw)
}

func TestLazyCycleIsRejected(t *testing.T) {
	vm := newVM(t, luavm.Options{})
	_, err := vm.ReflectStatus(ctx, luavm.NewScript(ric, "function ReflectStatus(obj)\n  obj.spec.nested.self = obj.spec\n  return obj\nend"), obj(t, lazyFixture))
	wantErr(t, err, "cannot encode recursively nested tables to JSON")
}

func TestLazyResultsMatchEager(t *testing.T) {
	// Untouched parts of the arguments are encoded from their Go values;
	// the result must be the same as with filled tables.
	vm := newVM(t, luavm.Options{})
	in := obj(t, `{"apiVersion":"v1","kind":"X","metadata":{"name":"a","labels":{}},"spec":{"n":1,"f":1.5,"big":9007199254740993,"l":[null,{},[],1],"m":{"x":null}}}`)
	for _, body := range []string{
		"return obj",
		"local s = obj.spec\nlocal _ = s.n + #s.l\nreturn obj",
		"local _ = obj.spec.m.x\nlocal _ = obj.metadata.labels.a\nreturn obj",
		"local function walk(t) for _, v in pairs(t) do if type(v) == 'table' then walk(v) end end end\nwalk(obj)\nreturn obj",
	} {
		out, err := vm.ReviseReplica(ctx, luavm.NewScript(ric, "function ReviseReplica(obj, r)\n"+body+"\nend"), in, 1)
		if err != nil {
			t.Fatal(err)
		}
		// l: null dropped, {} and [] are empty tables restored as {} (the
		// reference has both at spec.l; objects win); m: {"x":null} is an
		// empty table the reference does not have empty, so it is removed.
		want := `{"apiVersion":"v1","kind":"X","metadata":{"labels":{},"name":"a"},"spec":{"big":9007199254740992,"f":1.5,"l":[{},{},1],"n":1}}`
		if got := toJSON(t, out.Object); got != want {
			t.Errorf("%q:\ngot  %s\nwant %s", body, got, want)
		}
	}
	if in.Object["spec"].(map[string]any)["l"].([]any)[0] != nil {
		t.Error("the input object was modified")
	}
}

func TestLeakedProxiesAreDetached(t *testing.T) {
	vm := newVM(t, luavm.Options{PoolSize: 1})
	in := obj(t, `{"kind":"X","spec":{"a":{"b":7}},"status":{"c":{"d":8}}}`)
	keep := luavm.NewScript("keep", "function ReflectStatus(obj)\n  filled = obj.spec.a\n  for _ in pairs(filled) do end\n  unfilled = obj.status\n  return {}\nend")
	if _, err := vm.ReflectStatus(ctx, keep, in); err != nil {
		t.Fatal(err)
	}
	// The caller may now change its object: the state no longer refers to it.
	in.Object["status"].(map[string]any)["c"] = "changed"
	// (convert.TestEndCallDetachesProxies checks that no proxy is backed
	// by it any more.)
	// Nor does any later call: globals do not outlive their call.
	got := mustEval(t, vm, "return {b = filled == nil, c = unfilled == nil}")
	if got != `{"b":true,"c":true}` {
		t.Errorf("leaked globals: %s", got)
	}
}
