package vm

import (
	glua "github.com/yuin/gopher-lua"
)

// Globals that shadow base names. In Karmada a script's globals live in
// the state's one global table: a script that assigns a global named like
// a base function or library (Karmada's FlinkDeployment aggregation sets
// `error = ''`, then `error = currentStatus.error`) replaces it, and once
// the global is nil, reading it gives nil. A call environment whose
// __index is the global table would hand out the base function again
// after the assignment of nil, and the result would hold a function.
//
// So a script that assigns a global the state's global table holds, or
// reads _G (through which it may assign any name), runs in an environment
// that holds a copy of the globals and has no __index: within the call it
// sees one table, as in Karmada; the next call still gets fresh globals.
// Every other script keeps the cheaper environment over the global table.

// Instruction layout of gopher-lua's (Lua 5.1's) bytecode: a 6-bit opcode
// in the high bits, Bx in the low 18 bits.
const (
	opcodeShift = 26
	argBxMask   = 1<<18 - 1
)

// assignedGlobals lists the names proto and the functions it defines
// assign as globals, and "_G" when they read _G.
func assignedGlobals(proto *glua.FunctionProto) []string {
	var names []string
	seen := map[string]struct{}{}
	add := func(name string) {
		if _, ok := seen[name]; !ok {
			seen[name] = struct{}{}
			names = append(names, name)
		}
	}
	var walk func(p *glua.FunctionProto)
	walk = func(p *glua.FunctionProto) {
		for _, inst := range p.Code {
			op := int(inst >> opcodeShift)
			if op != glua.OP_SETGLOBAL && op != glua.OP_GETGLOBAL {
				continue
			}
			bx := int(inst & argBxMask)
			if bx >= len(p.Constants) {
				continue
			}
			name, ok := p.Constants[bx].(glua.LString)
			if !ok {
				continue
			}
			if op == glua.OP_SETGLOBAL || name == "_G" {
				add(string(name))
			}
		}
		for _, child := range p.FunctionPrototypes {
			walk(child)
		}
	}
	walk(proto)
	return names
}

// shadows reports whether one of names is a global of the state.
func (iso *isolation) shadows(names []string) bool {
	for _, name := range names {
		if iso.globals.RawGetString(name) != glua.LNil {
			return true
		}
	}
	return false
}

// copiedEnvironment returns an environment holding the state's globals.
func (iso *isolation) copiedEnvironment(L *glua.LState) *glua.LTable {
	env := L.CreateTable(0, len(iso.names)+4)
	for i, name := range iso.names {
		env.RawSetString(name, iso.values[i])
	}
	env.RawSetString("_G", env)
	return env
}
