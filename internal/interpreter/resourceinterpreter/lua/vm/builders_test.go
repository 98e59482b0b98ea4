package vm

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	glua "github.com/yuin/gopher-lua"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/convert"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// allocated returns the bytes the process allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// builderCase runs body, which must fail with every part, allocating at
// most maxAlloc bytes.
func builderCase(t *testing.T, vm *testVM, body string, maxAlloc uint64, parts ...string) error {
	t.Helper()
	var err error
	alloc := allocated(func() { err = limitCase(t, vm, body, 5*time.Second, parts...) })
	if alloc > maxAlloc {
		t.Errorf("allocated %d MiB, want at most %d MiB", alloc>>20, maxAlloc>>20)
	}
	return err
}

func TestStringFormatBoundsWidthAndPrecision(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1})
	// Unbounded, the first allocated 2.5 GB before the budget could stop it.
	builderCase(t, vm, `local f = ""
for i = 1, 30 do f = f .. "%9999999[1]s" end
return {#string.format(f, "x")}`, 16<<20, "my-ric:4:", `bad argument #1 to string.format: width 9999999 in "%9999999[1]s" exceeds the limit of 99`)
	builderCase(t, vm, `return {string.format("%100s", "x")}`, 16<<20, `width 100 in "%100s" exceeds the limit of 99`)
	builderCase(t, vm, `return {string.format("%-0100s", "x")}`, 16<<20, `width 100 in "%-0100s" exceeds the limit of 99`)
	builderCase(t, vm, `return {string.format("%5.100f", 1)}`, 16<<20, `precision 100 in "%5.100f" exceeds the limit of 99`)
	builderCase(t, vm, `return {string.format("%[1]100d", 1)}`, 16<<20, `width 100 in "%[1]100d" exceeds the limit of 99`)
	builderCase(t, vm, `return {string.format("%99999999999999999999d", 1)}`, 16<<20, `width 99999999999999999999 in`)
	builderCase(t, vm, `local s = "%[xxxxxxxxxxxxxxxxxxxxxxx"
return {string.format(s, 1)}`, 16<<20, `argument index in "%[x" is not closed within 8 bytes`)

	// What fits is formatted as before.
	got := mustEval(t, vm, `return {string.format("%99s|%.99f|%[2]d %[1]q|%5.2f|%-3s|%x|%%|%d", "a", 42, 3.14159, "b", "hi", "7")}`)
	want := fmt.Sprintf(`["%s"]`, strings.ReplaceAll(fmt.Sprintf("%99s|%.99f|%[2]d %[1]q|%5.2f|%-3s|%x|%%|%d",
		glua.LString("a"), glua.LNumber(42), glua.LNumber(3.14159), glua.LString("b"), glua.LString("hi"), glua.LString("7")), `"`, `\"`))
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestStringFormatChargesTheResult(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1, MaxAllocBytes: 16 << 20})
	// A 1 MB argument reused by 40 verbs: 38 MiB, refused before it is built.
	err := builderCase(t, vm, `local s = "0123456789"
for i = 1, 5 do s = s .. s .. s .. s .. s .. s .. s .. s .. s .. s end
local f = ""
for i = 1, 40 do f = f .. "%[1]s" end
return {#string.format(f, s)}`, 12<<20, "my-ric:6:", "exceeded its allocation budget of 16 MiB (string.format would build up to 38 MiB")
	if !errors.Is(err, ErrLimit) {
		t.Errorf("%v is not ErrLimit", err)
	}
	// Caught by pcall, the limit still stops the call.
	builderCase(t, vm, `local s = "0123456789"
for i = 1, 5 do s = s .. s .. s .. s .. s .. s .. s .. s .. s .. s end
local f = ""
for i = 1, 40 do f = f .. "%[1]s" end
pcall(string.format, f, s)
while true do end`, 12<<20, "exceeded its allocation budget of 16 MiB")
	// Many results that fit are built.
	if got := mustEval(t, vm, `local n = 0
for i = 1, 200 do n = n + #string.format("%99s", i) end
return {n}`); got != "[19800]" {
		t.Errorf("got %s", got)
	}
}

func TestStringFormatOfTables(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1})
	if got := mustEval(t, vm, `return {string.format("%s %v %q", {}, print, {}):match("^table: 0x%x+ function: 0x%x+ \"table: 0x%x+\"$") ~= nil}`); got != "[true]" {
		t.Errorf("got %s", got)
	}
	// Other verbs would print the Go internals of the table.
	builderCase(t, vm, `return {string.format("%s %d", "a", {})}`, 16<<20, `bad argument #3 to string.format: "%d" cannot format a table`)
	builderCase(t, vm, `return {string.format("%#v", print)}`, 16<<20, `bad argument #2 to string.format: "%#v" cannot format a function`)
}

func TestTableConcatChargesTheResult(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1, MaxAllocBytes: 16 << 20})
	// Unbounded, 301 empty strings joined by a 1 MiB separator allocated
	// 1.65 GB before the budget could stop it.
	err := builderCase(t, vm, `local sep = "x"
for i = 1, 20 do sep = sep .. sep end
local t = {}
for i = 1, 301 do t[i] = "" end
return {#table.concat(t, sep)}`, 12<<20, "my-ric:6:", "exceeded its allocation budget of 16 MiB (table.concat would build up to 300 MiB)")
	if !errors.Is(err, ErrLimit) {
		t.Errorf("%v is not ErrLimit", err)
	}
	// What the state already holds counts: 10 MiB held, 8 MiB more refused.
	builderCase(t, vm, `local s = "x"
for i = 1, 20 do s = s .. s end
local held = {s, s, s, s, s, s, s, s, s, s}
local t = {}
for i = 1, 8 do t[i] = s end
return {#table.concat(t), #held}`, 12<<20, "table.concat would build up to 8 MiB while the script holds")
	if got := mustEval(t, vm, `local t = {}
for i = 1, 1000 do t[i] = i % 2 == 0 and i or "ab" end
return {table.concat(t, ", ", 2, 999)}`); got != `["`+joined(2, 999)+`"]` {
		t.Errorf("got %s", got)
	}
}

// joined is what table.concat(t, ", ", from, to) gives for the table of
// TestTableConcatChargesTheResult.
func joined(from, to int) string {
	var parts []string
	for i := from; i <= to; i++ {
		if i%2 == 0 {
			parts = append(parts, fmt.Sprint(i))
		} else {
			parts = append(parts, "ab")
		}
	}
	return strings.Join(parts, ", ")
}

func TestResultOfRepeatedStringsIsBounded(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1})
	// The table holds one 1 MiB string 200 times; unbounded, its JSON
	// took 48 s and 926 MiB to build (with 2,000 times, 10 GB).
	var err error
	alloc := allocated(func() {
		_, err = eval(t, vm, `local s = "x"
for i = 1, 20 do s = s .. s end
local t = {}
for i = 1, 200 do t[i] = s end
return t`)
	})
	wantErr(t, err, `customization "my-ric" InterpretStatus: the result exceeds the limit of 16 MiB`)
	if alloc > 16<<20 {
		t.Errorf("allocated %d MiB", alloc>>20)
	}
	// The JSON writer of typed results stops as early.
	alloc = allocated(func() {
		err = vm.Run(ctx, &Call[*convert.State]{
			Script: NewScript(ric, `function GetDependencies(o)
  local s = "x"
  for i = 1, 20 do s = s .. s end
  local t = {}
  for i = 1, 200 do t[i] = {name = s} end
  return t
end`),
			Op: configv1alpha1.InterpreterOperationInterpretDependency, Entry: "GetDependencies", NRet: 1,
			Args: func(L *glua.LState, _ *convert.State) (int, error) {
				L.Push(glua.LNil)
				return 1, nil
			},
			Results: func(_ *glua.LState, st *convert.State, rets []glua.LValue) error {
				var deps []map[string]any
				return st.DecodeInto(rets[0].(*glua.LTable), &deps)
			},
		})
	})
	if err == nil || !strings.Contains(err.Error(), "the result exceeds the limit of 16 MiB") || alloc > 100<<20 {
		t.Errorf("got %v, %d MiB allocated", err, alloc>>20)
	}
}

func TestConcatOperatorChargesTheResult(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1, MaxAllocBytes: 16 << 20})
	// 30 operands naming one 1 MiB string: 30 MiB in one operation,
	// refused before it is built (unbounded, with 8 MiB operands this
	// allocated 256 MiB and took 19 s).
	err := builderCase(t, vm, `local s = "x"
for i = 1, 20 do s = s .. s end
local u = s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s ..
  s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s .. s
return {#u}`, 12<<20, "my-ric:4:", "exceeded its allocation budget of 16 MiB (the .. operator would build up to 30 MiB)")
	if !errors.Is(err, ErrLimit) {
		t.Errorf("%v is not ErrLimit", err)
	}
	// The operator behaves as gopher-lua's.
	got := mustEval(t, vm, `local function two() return "p", "q" end
local a, b = "a", "b"
return {1 .. 2, "a" .. 1.5 .. "b", ("x"):upper() .. "y", two() .. "", "a" .. two(), (a .. b) .. a, #(a .. b .. a), {k = a .. b}, select("#", a .. two())}`)
	if want := `["12","a1.5b","Xy","p","ap","aba",3,{"k":"ab"},1]`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	_, err = eval(t, vm, `local t = {}
return {"a" .. t}`)
	wantErr(t, err, "my-ric:3:", "cannot perform concat operation between string and table")
	_, err = eval(t, vm, `return {1 .. nil}`)
	wantErr(t, err, "my-ric:2:", "cannot perform concat operation between number and nil")
}
