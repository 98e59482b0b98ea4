package vm

import (
	glua "github.com/yuin/gopher-lua"
)

// Isolation between calls. A pooled state runs the scripts of every
// customization, so nothing one call does may be seen by a later one:
//   - every call runs its chunk in a fresh environment table (the chunk's
//     globals, and _G, which names it), whose __index is the state's
//     global table: reads fall through to the base functions and
//     libraries, writes stay in the call's environment and are dropped
//     with it; a script that assigns a global named like a base function
//     or library gets a copy of the globals instead (shadow.go);
//   - the libraries (string, table, math, os, package and what it holds,
//     kube) are read-only proxies: empty tables whose __index is the
//     library and whose __newindex raises, so that no call can replace
//     string.upper or kube.resourceAdd for the next ones.
// Scripts cannot reach the global table or the libraries any other way:
// getfenv, setfenv, getmetatable, rawset and debug are not available.
// What differs from a plain table: pairs() and next() see a library as
// empty.

// frozenLibraries are the library globals made read-only.
var frozenLibraries = []string{
	glua.StringLibName, glua.TabLibName, glua.MathLibName, glua.OsLibName, glua.LoadLibName,
}

// isolation holds a state's frozen globals and the metatable of call
// environments.
type isolation struct {
	globals *glua.LTable
	envMeta *glua.LTable
	// names and values are the globals' members, copied into the
	// environment of a script that shadows one of them.
	names  []string
	values []glua.LValue
}

// isolate freezes the libraries of L (and the modules package.loaded
// holds) and returns what per-call environments need.
func isolate(L *glua.LState) *isolation {
	globals := L.Get(glua.GlobalsIndex).(*glua.LTable)
	frozen := map[*glua.LTable]*glua.LTable{}
	freeze := func(name string, t *glua.LTable) *glua.LTable {
		if p, ok := frozen[t]; ok {
			return p
		}
		p := readOnly(L, name, t)
		frozen[t] = p
		return p
	}
	pkg := globals.RawGetString(glua.LoadLibName).(*glua.LTable)
	loaded := pkg.RawGetString("loaded").(*glua.LTable)
	// Modules first, so that package.loaded holds the proxies the
	// globals name.
	var names []string
	loaded.ForEach(func(k, v glua.LValue) {
		if _, ok := v.(*glua.LTable); ok {
			names = append(names, k.String())
		}
	})
	for _, name := range names {
		loaded.RawSetString(name, freeze(name, loaded.RawGetString(name).(*glua.LTable)))
	}
	for _, field := range []string{"loaded", "loaders", "preload"} {
		if t, ok := pkg.RawGetString(field).(*glua.LTable); ok {
			pkg.RawSetString(field, freeze("package."+field, t))
		}
	}
	for _, name := range frozenLibraries {
		if t, ok := globals.RawGetString(name).(*glua.LTable); ok {
			globals.RawSetString(name, freeze(name, t))
		}
	}
	envMeta := L.CreateTable(0, 1)
	envMeta.RawSetString("__index", globals)
	iso := &isolation{globals: globals, envMeta: envMeta}
	globals.ForEach(func(k, v glua.LValue) {
		if name, ok := k.(glua.LString); ok && name != "_G" {
			iso.names = append(iso.names, string(name))
			iso.values = append(iso.values, v)
		}
	})
	return iso
}

// readOnly returns a proxy of t that raises on assignment.
func readOnly(L *glua.LState, name string, t *glua.LTable) *glua.LTable {
	mt := L.CreateTable(0, 3)
	mt.RawSetString("__index", t)
	mt.RawSetString("__len", L.NewFunction(func(L *glua.LState) int {
		L.Push(glua.LNumber(t.Len()))
		return 1
	}))
	mt.RawSetString("__newindex", L.NewFunction(func(L *glua.LState) int {
		L.RaiseError("attempt to modify read-only library table '%s'", name)
		return 0
	}))
	p := L.CreateTable(0, 0)
	p.Metatable = mt
	return p
}

// environment returns a fresh environment for one call of a script that
// assigns the global names assigned (and reads _G if it is listed).
func (iso *isolation) environment(L *glua.LState, assigned []string) *glua.LTable {
	if iso.shadows(assigned) {
		return iso.copiedEnvironment(L)
	}
	env := L.CreateTable(0, 4)
	env.Metatable = iso.envMeta
	env.RawSetString("_G", env)
	return env
}
