package vm

import (
	"fmt"

	glua "github.com/yuin/gopher-lua"
)

// stdOs and stdString hold gopher-lua's own implementations of the library
// functions the sandbox keeps as they are (after argument checks). They are
// read from a throw-away state once; the functions are stateless.
var (
	stdOs struct {
		time, date glua.LGFunction
	}
	stdString struct {
		byte, char, len, lower, upper, reverse, sub glua.LGFunction
	}
)

func init() {
	L := glua.NewState(glua.Options{SkipOpenLibs: true})
	defer L.Close()
	os := openStd(L, glua.OpenOs)
	stdOs.time, stdOs.date = gfn(os, "time"), gfn(os, "date")
	str := openStd(L, glua.OpenString)
	stdString.byte, stdString.char = gfn(str, "byte"), gfn(str, "char")
	stdString.len = gfn(str, "len")
	stdString.lower, stdString.upper = gfn(str, "lower"), gfn(str, "upper")
	stdString.reverse, stdString.sub = gfn(str, "reverse"), gfn(str, "sub")
}

func openStd(L *glua.LState, open glua.LGFunction) *glua.LTable {
	L.Push(L.NewFunction(open))
	L.Call(0, 1)
	t := L.CheckTable(-1)
	L.Pop(1)
	return t
}

func gfn(t *glua.LTable, name string) glua.LGFunction {
	fn, ok := t.RawGetString(name).(*glua.LFunction)
	if !ok || fn.GFunction == nil {
		panic(fmt.Sprintf("gopher-lua has no Go function %q", name))
	}
	return fn.GFunction
}
