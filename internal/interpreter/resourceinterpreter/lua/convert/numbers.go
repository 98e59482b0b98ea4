package convert

import (
	"math"

	glua "github.com/yuin/gopher-lua"
)

// smallNumbers holds the Lua values of the integers 0..len-1, built once:
// storing a number in a table boxes it, and object fields (replica counts,
// generations, ports) are mostly small integers. Never modified.
var smallNumbers = func() (n [1024]glua.LValue) {
	for i := range n {
		n[i] = glua.LNumber(i)
	}
	return n
}()

// luaNumber returns f as a Lua value, shared for small integers.
func luaNumber(f float64) glua.LValue {
	if f >= 0 && f < float64(len(smallNumbers)) && f == math.Trunc(f) && !math.Signbit(f) {
		return smallNumbers[int(f)]
	}
	return glua.LNumber(f)
}
