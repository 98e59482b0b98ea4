package vm

import (
	"fmt"
	"strings"
	"testing"

	glua "github.com/yuin/gopher-lua"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/convert"
)

func TestOverriddenGlobalsRaise(t *testing.T) {
	vm := newVM(t, Options{})
	for _, name := range unsupportedGlobals {
		_, err := eval(t, vm, "local x = "+name+"({})\nreturn {}")
		wantErr(t, err, "my-ric:2: call function "+name+" is not supported in karmada customized resourceinterpreter.")
	}
}

func TestAbsentLibraries(t *testing.T) {
	vm := newVM(t, Options{})
	got := mustEval(t, vm, `return {
  io = io == nil, debug = debug == nil, coroutine = coroutine == nil, channel = channel == nil,
  execute = os.execute == nil, exit = os.exit == nil, getenv = os.getenv == nil, remove = os.remove == nil,
  clock = os.clock == nil, tmpname = os.tmpname == nil,
  path = package.path == nil, cpath = package.cpath == nil, seeall = package.seeall == nil,
  loaders = #package.loaders}`)
	want := `{"channel":true,"clock":true,"coroutine":true,"cpath":true,"debug":true,"execute":true,"exit":true,"getenv":true,"io":true,"loaders":1,"path":true,"remove":true,"seeall":true,"tmpname":true}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	_, err := eval(t, vm, `os.execute("true")`)
	wantErr(t, err, "attempt to call a non-function object")
	_, err = eval(t, vm, `io.open("/etc/passwd")`)
	wantErr(t, err, "attempt to index a non-table object(nil) with key 'open'")
}

func TestKeptLibraries(t *testing.T) {
	vm := newVM(t, Options{})
	got := mustEval(t, vm, `return {
  time = os.time({year = 2024, month = 1, day = 2, hour = 12}) > 0,
  date = os.date("!%Y-%m-%d", 0),
  math = math.floor(math.max(1.5, 2.5)),
  tbl = table.concat({"a", "b"}, "-"),
  sel = select("#", 1, 2, 3),
  num = tonumber("0x10"),
  ok = pcall(error, "x") == false,
  ver = _VERSION,
  upper = ("abc"):upper(),
  len = string.len("abcd"),
  sub = ("hello"):sub(2, 3),
  byte = string.byte("A"),
  char = string.char(72, 105),
  fmt = string.format("%s-%05.1f-%d", "x", 3.14159, 7),
  rev = string.reverse("abc"),
  lower = string.lower("ABC"),
  gfind = string.gfind ~= nil}`)
	want := `{"byte":65,"char":"Hi","date":"1970-01-01","fmt":"x-003.1-7","gfind":true,"len":4,"lower":"abc","math":2,"num":16,"ok":true,"rev":"cba","sel":3,"sub":"el","tbl":"a-b","time":true,"upper":"ABC","ver":"Lua 5.1"}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestLibraryErrorsNameTheFunction(t *testing.T) {
	vm := newVM(t, Options{})
	_, err := eval(t, vm, "local x = table.insert(nil, 1)")
	wantErr(t, err, "my-ric:2: bad argument #1 to insert (table expected, got nil)")
	_, err = eval(t, vm, "local x = pairs(nil)")
	wantErr(t, err, "my-ric:2: bad argument #1 to pairs (table expected, got nil)")
}

func TestStringRestrictions(t *testing.T) {
	vm := newVM(t, Options{})
	for _, fn := range []string{"rep", "gsub", "dump"} {
		_, err := eval(t, vm, fmt.Sprintf("local x = string.%s('a', 'a', 'b')\nreturn {}", fn))
		wantErr(t, err, "my-ric:2:", "string."+fn+" is not supported by Karmada")
	}
	_, err := eval(t, vm, `local x = ("a"):rep(3)`)
	wantErr(t, err, "string.rep is not supported by Karmada")
	// Building a string just over the cap with concatenation works; passing
	// it to the string library does not.
	_, err = eval(t, vm, `local s = "0123456789"
for i = 1, 5 do s = s .. s .. s .. s .. s .. s .. s .. s .. s .. s end
s = s .. "x"
return {n = #s, u = s:upper()}`)
	wantErr(t, err, "my-ric:5:", "string of 1000001 bytes exceeds the limit of 1000000 bytes")
	if got := mustEval(t, vm, `local s = "0123456789"
for i = 1, 5 do s = s .. s .. s .. s .. s .. s .. s .. s .. s .. s end
return {n = #s:upper()}`); got != `{"n":1000000}` {
		t.Errorf("1,000,000 bytes: %s", got)
	}
}

func TestPackageLibrary(t *testing.T) {
	vm := newVM(t, Options{})
	_, err := eval(t, vm, `package.loadlib("libc.so", "system")`)
	wantErr(t, err, "loadlib is not supported")
	_, err = eval(t, vm, `local m = require("os2")`)
	wantErr(t, err, "module os2 not found", "no field package.preload['os2']")
	got := mustEval(t, vm, `local kube = require("kube")
local again = require("kube")
return {same = kube == again, loaded = package.loaded.kube == kube, str = require("string") == string}`)
	if got != `{"loaded":true,"same":true,"str":true}` {
		t.Errorf("got %s", got)
	}
}

// TestPatternsMatchGopherLua compares the sandbox's pattern matcher with
// gopher-lua's on find, match and gmatch.
func TestPatternsMatchGopherLua(t *testing.T) {
	exprs := []string{
		`string.find("hello world", "o w")`,
		`string.find("hello world", "o", 6)`,
		`string.find("hello world", "l+")`,
		`string.find("hello", "")`,
		`string.find("hello", "", 10)`,
		`string.find("a.b", ".", 1, true)`,
		`string.find("abc", "b", -1)`,
		`string.find("key=value", "(%w+)=(%w+)")`,
		`string.match("key = value", "^(%w+)%s*=%s*(%w+)$")`,
		`string.match("  trim  ", "^%s*(.-)%s*$")`,
		`string.match("2024-01-02", "(%d+)-(%d+)-(%d+)")`,
		`string.match("hello", "()ll()")`,
		`string.match("f(a(b)c)d", "%b()")`,
		`string.match("THE (quick) fox", "%f[%a]%a+")`,
		`string.match("abcabc", "(abc)%1")`,
		`string.match("x = [[y]]", "%[%[(.*)%]%]")`,
		`string.match("a]b", "[]]")`,
		`string.match("a-b", "[a%-]+")`,
		`string.match("hello123", "[^%d]+")`,
		`string.match("0x1F", "^0x(%x+)$")`,
		`string.match("abc", "a?b?c?d?")`,
		`string.match("aaa", "a-b")`,
		`string.match("aaab", "a-b")`,
		`string.match("v1.2.3", "v(%d+)%.(%d+)%.(%d+)")`,
		`string.match("resourcetemplate.karmada.io/generation", "^[%w%.]+/")`,
		`string.match("abc", ".-$")`,
		`string.match("$x", "$x")`,
		`string.match("a\0b", "%z")`,
		`string.match("UPPER lower", "%u+")`,
		`string.match("p!u?n", "%p")`,
		`string.match("\t x", "%S")`,
		`string.match("ctrl\1", "%c")`,
		`string.match("abc", "b", 10)`,
		`string.find("abc", "b", 10)`,
		`string.find("abc", "", 2)`,
		`string.find("abc", "x")`,
		`select("#", string.match("abc", "x"))`,
		`string.match("abc", "c", -1)`,
		`string.match("abc", "a", 0)`,
	}
	gmatch := []string{
		`(function() local t = {} for w in string.gmatch("one two  three", "%a+") do t[#t+1] = w end return table.concat(t, "|") end)()`,
		`(function() local t = {} for k, v in string.gmatch("a=1, b=2", "(%w+)=(%w+)") do t[#t+1] = k .. v end return table.concat(t, "|") end)()`,
		`(function() local n = 0 for _ in string.gmatch("abc", "") do n = n + 1 end return n end)()`,
		`(function() local t = {} for w in ("x,y,,z"):gmatch("([^,]*)") do t[#t+1] = "<" .. w .. ">" end return table.concat(t) end)()`,
		`(function() local t = {} for w in ("abab"):gmatch("^ab") do t[#t+1] = w end return #t end)()`,
		`(function() local t = {} for p in ("a1b2"):gmatch("()%d") do t[#t+1] = p end return table.concat(t, ",") end)()`,
	}
	ref := glua.NewState()
	defer ref.Close()
	refConv := convert.NewState(ref)
	vm := newVM(t, Options{})
	for _, e := range append(exprs, gmatch...) {
		body := "return {" + e + "}"
		if err := ref.DoString("__r = (function() " + body + " end)()"); err != nil {
			t.Fatalf("gopher-lua %s: %v", e, err)
		}
		want, err := refConv.DecodeRaw(ref.GetGlobal("__r").(*glua.LTable))
		if err != nil {
			t.Fatal(err)
		}
		got := mustEval(t, vm, body)
		if w := string(want.Raw); got != w {
			t.Errorf("%s: sandbox %s, gopher-lua %s", e, got, w)
		}
	}
}

func TestPatternErrors(t *testing.T) {
	vm := newVM(t, Options{})
	cases := map[string]string{
		`string.find("a", "%")`:                               "malformed pattern (ends with '%')",
		`string.find("a", "[a")`:                              "malformed pattern (missing ']')",
		`string.find("a", "(a")`:                              "unfinished capture",
		`string.match("a", "a)")`:                             "invalid pattern capture",
		`string.find("a", "%1")`:                              "invalid capture index",
		`string.find("a", "%b")`:                              "unbalanced pattern",
		`string.find("a", "` + strings.Repeat("(", 33) + `")`: "too many captures",
		`string.find("` + strings.Repeat("a", 300) + `", "` + strings.Repeat("a?", 300) + `")`: "pattern too complex",
	}
	for expr, msg := range cases {
		_, err := eval(t, vm, "local r = "+expr+"\nreturn {}")
		wantErr(t, err, "my-ric:2:", msg)
	}
}
