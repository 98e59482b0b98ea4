package vm

import (
	"strings"
	"testing"
)

// A script that hijacks libraries and sets globals must not change what
// the next call on the same pooled state sees.
func TestCallsAreIsolated(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1})
	hostile := NewScript("hostile", `local kube = require("kube")
function ReflectStatus(obj)
  local results = {}
  for _, f in ipairs({
    function() string.upper = function() return "HIJACKED" end end,
    function() kube.resourceAdd = function() return "HIJACKED" end end,
    function() package.loaded.kube = {} end,
    function() table.concat = nil end,
    function() math.max = function() return -1 end end,
    function() os.time = nil end,
    function() package.loaders[1] = nil end,
    function() package.preload.kube().resourceAdd = function() return "HIJACKED" end end,
  }) do
    local ok, err = pcall(f)
    results[#results + 1] = ok and "modified" or (string.find(err, "read%-only library table") and "refused" or err)
  end
  tostring = function() return "HIJACKED" end
  pairs = nil
  _G.leaked = "global"
  shared = "global"
  return {r = table.concat(results, ",")}
end`)
	raw, err := reflectStatus(vm, ctx, hostile, obj(t, `{"kind":"X"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(raw.Raw); strings.Contains(got, "modified") {
		t.Errorf("a library was modified: %s", got)
	}
	honest := NewScript("honest", `local kube = require("kube")
function ReflectStatus(obj)
  local n = 0
  for _ in pairs({a = 1}) do n = n + 1 end
  return {upper = string.upper("a"), add = kube.resourceAdd("1", "2"), str = tostring(1),
    n = n, leaked = leaked == nil and _G.leaked == nil and shared == nil, max = math.max(1, 2),
    concat = table.concat({"x", "y"}), time = type(os.time), same = require("kube") == kube}
end`)
	raw, err = reflectStatus(vm, ctx, honest, obj(t, `{"kind":"X"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"add":"3","concat":"xy","leaked":true,"max":2,"n":1,"same":true,"str":"1","time":"function","upper":"A"}`
	if got := string(raw.Raw); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// Within a call, globals work as in Karmada: _G is the call's globals.
func TestGlobalsWithinACall(t *testing.T) {
	vm := newVM(t, Options{})
	got := mustEval(t, vm, `x = 1
_G.y = 2
local function f() return x + y end
return {sum = f(), viaG = _G.x, g = _G == _G._G}`)
	if got != `{"g":true,"sum":3,"viaG":1}` {
		t.Errorf("got %s", got)
	}
}
