package vm

import (
	"fmt"
	"strings"

	glua "github.com/yuin/gopher-lua"
)

// unsupportedGlobals are the base functions Karmada replaces with a function
// that raises an error; _printregs (a gopher-lua debugging aid writing to
// stdout) is added by Propel.
var unsupportedGlobals = []string{
	"collectgarbage", "dofile", "getfenv", "getmetatable", "load", "loadfile", "loadstring",
	"rawequal", "rawget", "rawset", "setfenv", "setmetatable", "module", "newproxy", "_printregs",
}

// newSandbox creates a Lua state with exactly the libraries Karmada opens:
// a package library that can only load the modules registered with
// RegisterModule (kube), the base
// functions minus the unsafe ones, table, a capped string library, math and
// os.time/os.date. io, debug, coroutine and channel are absent.
func newSandbox(o Options) (*glua.LState, error) {
	L := glua.NewState(glua.Options{
		SkipOpenLibs:    true,
		CallStackSize:   o.CallStackSize,
		RegistrySize:    o.RegistrySize,
		RegistryMaxSize: o.RegistryMaxSize,
	})
	steps := []struct {
		name string
		open glua.LGFunction
	}{
		{glua.LoadLibName, openSafePackage},
		{glua.BaseLibName, glua.OpenBase},
		{glua.TabLibName, glua.OpenTable},
		{glua.StringLibName, openSafeString},
		{glua.MathLibName, glua.OpenMath},
		{glua.OsLibName, openSafeOs},
	}
	for _, s := range steps {
		L.Push(L.NewFunction(s.open))
		L.Push(glua.LString(s.name))
		if err := L.PCall(1, 0, nil); err != nil {
			L.Close()
			return nil, fmt.Errorf("open Lua library %q: %w", s.name, err)
		}
	}
	for _, name := range unsupportedGlobals {
		L.SetGlobal(name, L.NewFunction(unsupported(name)))
	}
	L.GetGlobal(glua.TabLibName).(*glua.LTable).RawSetString("concat", L.NewFunction(tableConcat))
	L.SetGlobal(concatFunction, L.NewFunction(concatOperator))
	return L, nil
}

// tableConcat is table.concat without gopher-lua's use of the value stack
// (two slots per element: 2,500 elements overflowed the registry).
func tableConcat(L *glua.LState) int {
	tbl := L.CheckTable(1)
	sep := L.OptString(2, "")
	n := tbl.Len()
	i := L.OptInt(3, 1)
	j := L.OptInt(4, n)
	if L.GetTop() == 3 && (i > n || i < 1) {
		L.Push(glua.LString(""))
		return 1
	}
	i = max(min(i, n), 1)
	j = min(j, n)
	if i > j {
		L.Push(glua.LString(""))
		return 1
	}
	// The result's size first, charged to the budget, then one allocation.
	size := int64(len(sep)) * int64(j-i)
	for k := i; k <= j; k++ {
		v := tbl.RawGetInt(k)
		if !glua.LVCanConvToString(v) {
			L.RaiseError("invalid value (%s) at index %d in table for concat", v.Type().String(), k)
		}
		if s, ok := v.(glua.LString); ok {
			size += int64(len(s))
		} else {
			size += int64(len(glua.LVAsString(v)))
		}
	}
	reserve(L, "table.concat", size)
	var b strings.Builder
	b.Grow(int(size))
	for k := i; k <= j; k++ {
		if k > i {
			b.WriteString(sep)
		}
		b.WriteString(glua.LVAsString(tbl.RawGetInt(k)))
	}
	L.Push(glua.LString(b.String()))
	return 1
}

func unsupported(name string) glua.LGFunction {
	return raises(fmt.Sprintf("call function %s is not supported in karmada customized resourceinterpreter.", name))
}

// raises is a Lua function that raises msg whatever its arguments: what
// Karmada's sandbox answers for a function it leaves out.
func raises(msg string) glua.LGFunction {
	return func(L *glua.LState) int {
		L.RaiseError("%s", msg)
		return 0
	}
}

// openSafePackage opens a package library whose only loader is the preload
// one: package.loadlib raises, there is no search path.
func openSafePackage(L *glua.LState) int {
	registry := L.Get(glua.RegistryIndex).(*glua.LTable)
	pkg := L.NewTable()
	preload := L.NewTable()
	loaders := L.NewTable()
	loaders.Append(L.NewFunction(preloadLoader(preload)))
	loaded := L.NewTable()
	pkg.RawSetString("loadlib", L.NewFunction(func(L *glua.LState) int {
		L.RaiseError("loadlib is not supported")
		return 0
	}))
	pkg.RawSetString("preload", preload)
	pkg.RawSetString("loaders", loaders)
	pkg.RawSetString("loaded", loaded)
	// The base library's require reads these registry entries.
	registry.RawSetString("_LOADERS", loaders)
	registry.RawSetString("_LOADED", loaded)
	loaded.RawSetString(glua.LoadLibName, pkg)
	L.SetGlobal(glua.LoadLibName, pkg)
	L.Push(pkg)
	return 1
}

func preloadLoader(preload *glua.LTable) glua.LGFunction {
	return func(L *glua.LState) int {
		name := L.CheckString(1)
		if fn := preload.RawGetString(name); fn != glua.LNil {
			L.Push(fn)
			return 1
		}
		L.Push(glua.LString(fmt.Sprintf("no field package.preload['%s']", name)))
		return 1
	}
}

// openSafeOs opens os with only time and date.
func openSafeOs(L *glua.LState) int {
	mod := L.RegisterModule(glua.OsLibName, map[string]glua.LGFunction{
		"time": stdOs.time,
		"date": stdOs.date,
	})
	L.Push(mod)
	return 1
}

// RegisterModule makes mod what require(name) returns in L. Modules are
// registered before the state's libraries are frozen (a VM's open function
// runs then), so that every call shares one read-only module.
func RegisterModule(L *glua.LState, name string, mod *glua.LTable) {
	pkg, ok := L.GetGlobal(glua.LoadLibName).(*glua.LTable)
	if !ok {
		panic("lua: the package library is not open")
	}
	loaded := pkg.RawGetString("loaded").(*glua.LTable)
	loaded.RawSetString(name, mod)
	// The preload function returns what package.loaded holds, the
	// read-only module once the libraries are frozen, never mod itself
	// (package.preload.kube() would otherwise hand out a writable module).
	pkg.RawGetString("preload").(*glua.LTable).RawSetString(name, L.NewFunction(func(L *glua.LState) int {
		L.Push(loaded.RawGetString(name))
		return 1
	}))
}
