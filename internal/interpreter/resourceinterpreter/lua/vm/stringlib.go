package vm

import (
	"fmt"
	"strings"

	glua "github.com/yuin/gopher-lua"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/pattern"
)

// maxStringArg is the longest string a string-library function accepts, as
// in Karmada.
const maxStringArg = 1_000_000

// openSafeString opens Karmada's safe string library: gsub, rep and dump
// raise, every string argument is capped at maxStringArg bytes, and the
// pattern functions (find, match, gmatch) run on a matcher that honours the
// call's context and instruction budget. Strings get the library as their
// metatable's __index, so s:upper() works.
func openSafeString(L *glua.LState) int {
	funcs := map[string]glua.LGFunction{
		"byte":    capped("byte", stdString.byte),
		"char":    capped("char", stdString.char),
		"format":  capped("format", strFormat),
		"len":     capped("len", stdString.len),
		"lower":   capped("lower", stdString.lower),
		"upper":   capped("upper", stdString.upper),
		"reverse": capped("reverse", stdString.reverse),
		"sub":     capped("sub", stdString.sub),
		"find":    capped("find", strFind),
		"match":   capped("match", strMatch),
		"gmatch":  capped("gmatch", strGmatch),
		"gsub":    notSupportedByKarmada("gsub"),
		"rep":     notSupportedByKarmada("rep"),
		"dump":    notSupportedByKarmada("dump"),
	}
	mod := L.RegisterModule(glua.StringLibName, funcs).(*glua.LTable)
	mod.RawSetString("gfind", mod.RawGetString("gmatch"))
	mt := L.NewTable()
	mt.RawSetString("__index", mod)
	L.SetMetatable(glua.LString(""), mt)
	L.Push(mod)
	return 1
}

func notSupportedByKarmada(name string) glua.LGFunction {
	return raises(fmt.Sprintf("string.%s is not supported by Karmada customized resourceinterpreter.", name))
}

// capped rejects string arguments longer than maxStringArg before calling fn.
func capped(name string, fn glua.LGFunction) glua.LGFunction {
	return func(L *glua.LState) int {
		for i, top := 1, L.GetTop(); i <= top; i++ {
			if s, ok := L.Get(i).(glua.LString); ok && len(s) > maxStringArg {
				L.RaiseError("bad argument #%d to string.%s: string of %d bytes exceeds the limit of %d bytes",
					i, name, len(s), maxStringArg)
			}
		}
		return fn(L)
	}
}

// reserve charges a string of up to n bytes, about to be built by the
// library function what, to the call's budget, raising the limit error
// when it does not fit.
func reserve(L *glua.LState, what string, n int64) {
	b, ok := L.Context().(*budget)
	if !ok {
		return
	}
	if err := b.reserve(what, n); err != nil {
		L.RaiseError("%s", err.Error())
	}
}

// matchTick is the pattern matcher's callback: it stops the match once
// the call must stop. Every call counts as one instruction of the budget.
func matchTick(L *glua.LState) func() error {
	ctx := L.Context()
	if ctx == nil {
		return nil
	}
	return func() error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		default:
			return nil
		}
	}
}

// find runs the matcher, raising its errors as Lua errors.
func find(L *glua.LState, src, pat string, init int) *pattern.Match {
	m, err := pattern.Find(src, pat, init, matchTick(L))
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	return m
}

// pushCaptures pushes the captures of m; with whole and no captures it
// pushes the whole match.
func pushCaptures(L *glua.LState, src string, m *pattern.Match, whole bool) int {
	if len(m.Captures) == 0 && whole {
		L.Push(glua.LString(src[m.Start:m.End]))
		return 1
	}
	for _, cp := range m.Captures {
		switch cp.Len {
		case pattern.Unfinished:
			L.RaiseError("unfinished capture")
		case pattern.Position:
			L.Push(glua.LNumber(cp.Start + 1))
		default:
			L.Push(glua.LString(src[cp.Start : cp.Start+cp.Len]))
		}
	}
	return len(m.Captures)
}

// startOffset converts Lua's 1-based, possibly negative init argument to a
// 0-based offset, as gopher-lua does (Karmada's semantics): it may lie
// past the end of src, where nothing matches.
func startOffset(L *glua.LState, arg, n int) int {
	init := L.OptInt(arg, 1)
	if init < 0 {
		init += n + 1
	}
	return max(init-1, 0)
}

const patternSpecials = "^$*+?.([%-"

func strFind(L *glua.LState) int { return findAux(L, true) }

func strMatch(L *glua.LState) int { return findAux(L, false) }

// findAux implements string.find and string.match with gopher-lua's
// observable behaviour: find with an empty pattern is (1, 0), match
// without a match returns no value.
func findAux(L *glua.LState, isFind bool) int {
	src := L.CheckString(1)
	pat := L.CheckString(2)
	if isFind && pat == "" {
		L.Push(glua.LNumber(1))
		L.Push(glua.LNumber(0))
		return 2
	}
	init := startOffset(L, 3, len(src))
	if isFind && init <= len(src) && (L.ToBool(4) || !strings.ContainsAny(pat, patternSpecials)) {
		if i := strings.Index(src[init:], pat); i >= 0 {
			L.Push(glua.LNumber(init + i + 1))
			L.Push(glua.LNumber(init + i + len(pat)))
			return 2
		}
		L.Push(glua.LNil)
		return 1
	}
	if m := find(L, src, pat, init); m != nil {
		if !isFind {
			return pushCaptures(L, src, m, true)
		}
		L.Push(glua.LNumber(m.Start + 1))
		L.Push(glua.LNumber(m.End))
		return pushCaptures(L, src, m, false) + 2
	}
	L.Push(glua.LNil)
	if isFind {
		return 1
	}
	return 0
}

// strGmatch implements string.gmatch. As in gopher-lua, a pattern
// starting with '^' matches at most once, at the start.
func strGmatch(L *glua.LState) int {
	src := L.CheckString(1)
	pat := L.CheckString(2)
	pos := 0
	L.Push(L.NewFunction(func(L *glua.LState) int {
		if pos > len(src) {
			return 0
		}
		m := find(L, src, pat, pos)
		switch {
		case m == nil || pattern.Anchored(pat):
			pos = len(src) + 1
		case m.End > m.Start:
			pos = m.End
		default:
			pos = m.Start + 1
		}
		if m == nil {
			return 0
		}
		return pushCaptures(L, src, m, true)
	}))
	return 1
}
