package vm

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	glua "github.com/yuin/gopher-lua"
)

// baseNames lists every global a state offers scripts: base functions,
// libraries, _G, _VERSION and the functions Karmada disables.
func baseNames(t *testing.T, vm *testVM) []string {
	t.Helper()
	st, err := vm.pool.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer vm.pool.put(st)
	var names []string
	st.iso.globals.ForEach(func(k, _ glua.LValue) {
		// Only names a script can write: hidden globals such as the
		// concatenation function are not identifiers.
		if s, ok := k.(glua.LString); ok && luaIdentifier.MatchString(string(s)) {
			names = append(names, string(s))
		}
	})
	sort.Strings(names)
	for _, want := range []string{"error", "type", "pairs", "next", "tostring", "string", "table", "math", "_G"} {
		if sort.SearchStrings(names, want) == len(names) || names[sort.SearchStrings(names, want)] != want {
			t.Fatalf("the globals %v lack %q", names, want)
		}
	}
	return names
}

var luaIdentifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// A global a script assigns shadows the base function or library of that
// name for the rest of the call, also once it is set to nil: as in
// Karmada, where a script's globals live in the state's one global table,
// reading it then gives nil, not the library's value.
func TestAssignedGlobalShadowsBaseName(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1})
	for _, name := range baseNames(t, vm) {
		t.Run(name, func(t *testing.T) {
			src := fmt.Sprintf(`local results = {}
function ReflectStatus(obj)
  %[1]s = ''
  local set = %[1]s
  %[1]s = obj.missing
  local cleared = %[1]s
  return {set = set, cleared = cleared == nil}
end`, name)
			raw, err := reflectStatus(vm, ctx, NewScript(ric, src), obj(t, `{"kind":"X"}`))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(raw.Raw), `{"cleared":true,"set":""}`; got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
	// The next call on the same state sees the libraries again.
	got := mustEval(t, vm, `return {t = type(1), e = pcall(error, "x"), n = next({1}), s = string.upper("a")}`)
	if got != `{"e":false,"n":1,"s":"A","t":"number"}` {
		t.Errorf("a later call sees %s", got)
	}
}

// The assignment may sit in a nested function, run before the global is
// read, or go through _G; reads before the first assignment see the base
// value.
func TestShadowingGlobalsWithinACall(t *testing.T) {
	vm := newVM(t, Options{})
	for _, c := range []struct{ name, body, want string }{
		{"before assignment", `local before = type(1)
  type = nil
  return {before = before, after = type == nil}`, `{"after":true,"before":"number"}`},
		{"nested function", `local function clear() error = nil end
  error = 'x'
  clear()
  return {cleared = error == nil}`, `{"cleared":true}`},
		{"through _G", `_G.tostring = nil
  local viaName = tostring == nil
  _G["pairs"] = 1
  _G.pairs = nil
  return {viaName = viaName, pairs = pairs == nil}`, `{"pairs":true,"viaName":true}`},
		{"local of the same name", `local error = nil
  return {base = type(_G.error), local_ = error == nil}`, `{"base":"function","local_":true}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := mustEval(t, vm, c.body); got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

// Karmada's FlinkDeployment aggregation assigns a global named error and
// then the member's status.error, which is often absent.
func TestGlobalNamedErrorSetToNil(t *testing.T) {
	vm := newVM(t, Options{})
	got := mustEval(t, vm, `error = ''
  local s = {}
  error = s.error
  return {status = {error = error, phase = "RUNNING"}}`)
	if !strings.Contains(got, `"status":{"phase":"RUNNING"}`) {
		t.Errorf("got %s", got)
	}
}

// The copy of the globals a shadowing script gets, next to the shared
// environment of any other script:
//
//	go test -run '^$' -bench CallEnvironment -benchmem ./internal/interpreter/resourceinterpreter/lua/vm/
func BenchmarkCallEnvironment(b *testing.B) {
	vm := newVM(b, Options{PoolSize: 1})
	o := obj(b, `{"kind":"X"}`)
	for _, c := range []struct{ name, global string }{
		{"shared", "phase"},
		{"shadowing", "error"},
	} {
		s := NewScript(ric, fmt.Sprintf(`function InterpretHealth(obj)
  %s = obj.missing
  return true
end`, c.global))
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := interpretHealth(vm, ctx, s, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The bytecode scan of any script that compiles names only globals the
// script's text mentions, and never fails.
func FuzzAssignedGlobals(f *testing.F) {
	for _, s := range []string{
		`error = ''`, `local function f() type = nil end`, `_G.x = 1`, `x, y = 1, 2`,
		`function ReflectStatus(o) local error = 1; return {e = error} end`,
		`t = {}; t.error = 1; string = nil`, `for i = 1, 3 do pairs = i end`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, source string) {
		prog, err := compile("fuzz", source)
		if err != nil {
			return
		}
		for _, name := range prog.globals {
			if !strings.Contains(source, name) {
				t.Errorf("global %q is not in the script %q", name, source)
			}
		}
	})
}

func TestAssignedGlobals(t *testing.T) {
	for _, c := range []struct {
		source string
		want   string
	}{
		{`local error = 1; local t = {}; t.type = 2; print(pairs)`, ``},
		{`error = 1; function f() local x; type = x end`, `error,f,type`},
		{`local n = #_G`, `_G`},
		{`next, tostring = nil, nil`, `tostring,next`},
	} {
		prog, err := compile("x", c.source)
		if err != nil {
			t.Fatal(err)
		}
		names := append([]string(nil), prog.globals...)
		if got := strings.Join(names, ","); got != c.want && !sameSet(names, strings.Split(c.want, ",")) {
			t.Errorf("%s: got %q, want %q", c.source, got, c.want)
		}
	}
}

func sameSet(a, b []string) bool {
	sort.Strings(a)
	sort.Strings(b)
	return strings.Join(a, ",") == strings.Join(b, ",")
}

// A script that runs in a copy of the globals (it assigns a base name) still
// reaches the hidden function its .. chains are compiled into.
func TestShadowingScriptConcatenates(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1})
	src := `function ReflectStatus(obj)
  error = 'e'
  return {joined = error .. '-' .. obj.kind}
end`
	raw, err := reflectStatus(vm, ctx, NewScript(ric, src), obj(t, `{"kind":"X"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(raw.Raw), `{"joined":"e-X"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
