package vm

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// hostileScripts are scripts that crashed, stalled or bloated the process
// when compiled before the limits existed, each with the limit that
// now rejects it.
func hostileScripts() map[string]struct{ src, msg string } {
	consts := &strings.Builder{}
	consts.WriteString("function GetReplicas(o) local t = {")
	for i := 0; i < MaxConstants+10; i++ {
		fmt.Fprintf(consts, "%d,", i)
	}
	consts.WriteString("} return 1, nil end")
	return map[string]struct{ src, msg string }{
		"hashes": {"function GetReplicas(o) local t={} return " + strings.Repeat("#", 1_300_000) + "t,nil end",
			"exceeds the limit of 65536 bytes"},
		"hashesSmall": {"function GetReplicas(o) local t={} return " + strings.Repeat("#", 60_000) + "t,nil end",
			"deeper than the limit of 200 levels"},
		"notChain": {"function GetReplicas(o) return " + strings.Repeat("not ", 10_000) + "1, nil end",
			"deeper than the limit of 200 levels"},
		"parens": {"function GetReplicas(o) return " + strings.Repeat("(", 20_000) + "1" + strings.Repeat(")", 20_000) + ", nil end",
			"deeper than the limit of 200 levels"},
		"tables": {"local t = " + strings.Repeat("{", 20_000) + strings.Repeat("}", 20_000),
			"deeper than the limit of 200 levels"},
		"functions": {strings.Repeat("function f() ", 3_000) + strings.Repeat("end ", 3_000),
			"deeper than the limit of 200 levels"},
		"constants": {consts.String(), "more than the limit of 2048 distinct constants"},
	}
}

func TestHostileScriptsAreRejectedBeforeCompiling(t *testing.T) {
	for name, c := range hostileScripts() {
		start := time.Now()
		err := Compile(ric, c.src)
		var ce *CompileError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), ric+":") {
			t.Errorf("%s: got %v, want a CompileError with %q", name, err, c.msg)
		}
		t.Logf("%s: rejected in %s", name, time.Since(start))
	}
}

func TestPrecheckKeepsValidScripts(t *testing.T) {
	// Strings, comments and long brackets are not counted as code.
	src := `-- a comment with ((((( and function function
--[==[ a long comment {{{{ if if if ]==]
local s = "(((( \" {{{{" .. '))))' .. [[ function if do ]]
function ReflectStatus(obj)
  local n = -(-1) - -2
  if #s > 0 and not (n == nil) then
    for i = 1, 2 do repeat n = n + 1 until true end
  end
  return {n = n, a = obj.x and obj.x[1] or {}, e = 1e-3, h = 0x1F}
end`
	if err := Compile(ric, src); err != nil {
		t.Fatal(err)
	}
	// Nesting at the limit compiles.
	deep := "local t = " + strings.Repeat("{", MaxNestingDepth-1) + strings.Repeat("}", MaxNestingDepth-1)
	if err := Compile(ric, deep); err != nil {
		t.Errorf("nesting at the limit: %v", err)
	}
}

// The worst scripts within the limits compile quickly; the times are
// logged (timing is measured by BenchmarkCompileWorstCase, not asserted).
func BenchmarkCompileWorstCase(b *testing.B) {
	consts := &strings.Builder{}
	consts.WriteString("local t = {")
	for i := 0; i < MaxConstants; i++ {
		fmt.Fprintf(consts, "%d,", i)
	}
	consts.WriteString("}")
	chain := "local x = 1" + strings.Repeat("+1", (MaxScriptBytes-20)/2)
	nest := "local t = " + strings.Repeat("{", MaxNestingDepth-1) + strings.Repeat("}", MaxNestingDepth-1)
	for name, src := range map[string]string{"constants": consts.String(), "chain": chain, "nesting": nest} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if err := Compile(ric, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
