package convert

import (
	"encoding/binary"
	"slices"
	"strings"

	glua "github.com/yuin/gopher-lua"
)

// Building object tables in one go (status items, decoded JSON, filled
// proxies), through gopher-lua's public API only: a table whose members
// are all known up front is created with its member map sized once
// (CreateTable), and its members are set in key order with RawSetString,
// so that next() and pairs() visit them in key order. Short strings are
// interned per state: boxing a string into a Lua value allocates, and
// objects repeat the same keys and values.
//
// RawSetString allocates for every key a table does not hold yet (it
// boxes the key for the table's key list and index, which start empty and
// grow), so object tables are reused by the state's later calls: when a
// call ends (release), each table object built that still holds exactly
// the keys it was built with (the script added or removed none) goes to a
// free list of its shape (its sorted keys), values and all: the next
// object of that shape gets it back and overwrites every member, which
// neither allocates nor touches the table's key list and index. No later
// call can see a table of an earlier one before it is overwritten: calls
// are isolated (see lua/vm), and a table is handed out only once filled.

// Bounds of a state's caches (a few hundred KiB at worst): once full, the
// interned strings are dropped and refilled, so that unusual inputs cannot
// grow them without end.
const (
	maxInternedLen = 64
	maxInterned    = 1024
	maxShapes      = 256
	// Tables of at most maxReusedMembers members are reused, at most
	// maxFreePerShape of a shape.
	maxReusedMembers = 32
	maxFreePerShape  = 64
)

// tableBuilder builds the tables of a state's conversions. A nil builder
// (a state without scratch space) works too, without interning.
type tableBuilder struct {
	L        *glua.LState
	interned map[string]glua.LValue
	// slab holds empty tables not handed out yet, allocated a chunk at a
	// time (proxies start empty).
	slab []glua.LTable
	// shapes are the free tables by the signature of their sorted keys.
	shapes map[string]*tableShape
	sig    []byte
	// built are the reusable tables handed out during the running call.
	built []builtTable
	// watch is the metatable of the reusable tables handed out: it tells
	// when a script adds a key (see newIndex).
	watch *glua.LTable
}

// tableShape is a set of keys, sorted, with the emptied tables holding
// exactly those keys.
type tableShape struct {
	keys []string
	free []*glua.LTable
}

type builtTable struct {
	t  *glua.LTable
	sh *tableShape
}

// slabSize is the number of empty tables allocated at once.
const slabSize = 32

func newTableBuilder(L *glua.LState) *tableBuilder {
	tb := &tableBuilder{L: L}
	tb.watch = L.CreateTable(0, 1)
	tb.watch.RawSetString("__newindex", L.NewFunction(tb.newIndex))
	return tb
}

// newIndex is the __newindex of reusable tables: the script adds a key,
// so the table no longer has its shape. It loses its metatable (and so its
// place in the free lists) and the assignment proceeds as on any table.
func (tb *tableBuilder) newIndex(L *glua.LState) int {
	t := L.CheckTable(1)
	t.Metatable = glua.LNil
	L.SetTable(t, L.Get(2), L.Get(3))
	return 0
}

// touched is called by the library functions that write tables raw
// (table.insert, remove, sort) on their first argument: a reusable table
// they may change loses its shape.
func (tb *tableBuilder) touched(L *glua.LState, i int) {
	if t, ok := L.Get(i).(*glua.LTable); ok && t.Metatable == tb.watch {
		t.Metatable = glua.LNil
	}
}

// newTable returns a new empty table, as CreateTable(0, 0).
func (tb *tableBuilder) newTable() *glua.LTable {
	if tb == nil {
		return &glua.LTable{Metatable: glua.LNil}
	}
	if len(tb.slab) == 0 {
		tb.slab = make([]glua.LTable, slabSize)
	}
	t := &tb.slab[0]
	tb.slab = tb.slab[1:]
	t.Metatable = glua.LNil
	return t
}

// str returns s as a Lua string value that does not refer to the memory
// of s (which may be a view of a larger buffer): a short s is interned, a
// long one copied.
func (tb *tableBuilder) str(s string) glua.LValue {
	if tb == nil || len(s) > maxInternedLen {
		return glua.LString(strings.Clone(s))
	}
	if v, ok := tb.interned[s]; ok {
		return v
	}
	if tb.interned == nil || len(tb.interned) >= maxInterned {
		tb.interned = make(map[string]glua.LValue, 64)
	}
	c := strings.Clone(s)
	v := glua.LValue(glua.LString(c))
	tb.interned[c] = v
	return v
}

// strBytes is str of a byte slice, without converting it first when the
// string is interned already.
func (tb *tableBuilder) strBytes(b []byte) glua.LValue {
	if tb != nil && len(b) <= maxInternedLen {
		if v, ok := tb.interned[string(b)]; ok {
			return v
		}
	}
	return tb.str(string(b))
}

// key returns s as a string that does not refer to the memory of s,
// interned when short.
func (tb *tableBuilder) key(b []byte) string {
	return string(tb.strBytes(b).(glua.LString))
}

// object returns a new table holding the members ms, given in any order;
// a nil value leaves its key out and of repeated keys the last wins (as
// encoding/json decodes objects). next() and pairs() visit the members in
// key order. Keys must not refer to a buffer that is reused.
func (tb *tableBuilder) object(ms []member) *glua.LTable {
	ms = normalize(ms)
	var t *glua.LTable
	switch {
	case len(ms) == 0:
		return tb.newTable()
	case tb == nil:
		t = &glua.LTable{Metatable: glua.LNil}
	case len(ms) <= maxReusedMembers:
		sh := tb.shape(ms)
		if n := len(sh.free); n > 0 {
			t = sh.free[n-1]
			sh.free[n-1] = nil
			sh.free = sh.free[:n-1]
		} else {
			t = tb.L.CreateTable(0, len(ms))
		}
		tb.built = append(tb.built, builtTable{t, sh})
		for _, m := range ms {
			t.RawSetString(m.key, m.val)
		}
		t.Metatable = tb.watch
		return t
	default:
		t = tb.L.CreateTable(0, len(ms))
	}
	for _, m := range ms {
		t.RawSetString(m.key, m.val)
	}
	return t
}

// shape returns the shape of ms (sorted, keys unique).
func (tb *tableBuilder) shape(ms []member) *tableShape {
	sig := tb.sig[:0]
	for _, m := range ms {
		sig = binary.AppendUvarint(sig, uint64(len(m.key)))
		sig = append(sig, m.key...)
	}
	tb.sig = sig
	if sh, ok := tb.shapes[string(sig)]; ok {
		return sh
	}
	sh := &tableShape{keys: make([]string, len(ms))}
	for i, m := range ms {
		sh.keys[i] = m.key
	}
	if tb.shapes == nil || len(tb.shapes) >= maxShapes {
		tb.shapes = make(map[string]*tableShape, 64)
	}
	tb.shapes[string(sig)] = sh
	return sh
}

// release ends a call: the tables object built that still hold exactly
// their shape's keys are kept for reuse; the others are left to the
// garbage collector. A table whose keys the script may have added to still
// has the watch metatable; one whose keys it removed (assigned nil, which
// needs no metamethod) gets them back when it is reused, in their order
// (the table's key list keeps removed keys).
func (tb *tableBuilder) release() {
	if tb == nil {
		return
	}
	for i, b := range tb.built {
		tb.built[i] = builtTable{}
		if len(b.sh.free) >= maxFreePerShape || b.t.Metatable != tb.watch {
			continue
		}
		b.sh.free = append(b.sh.free, b.t)
	}
	tb.built = tb.built[:0]
}

// normalize sorts ms by key in place (stably), keeps the last of repeated
// keys and drops nil values.
func normalize(ms []member) []member {
	if len(ms) <= 16 {
		// Insertion sort (stable): objects are small, and a sort with a
		// comparison function cost more than the rest of building them.
		for i := 1; i < len(ms); i++ {
			for j := i; j > 0 && ms[j].key < ms[j-1].key; j-- {
				ms[j], ms[j-1] = ms[j-1], ms[j]
			}
		}
	} else if !slices.IsSortedFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) }) {
		slices.SortStableFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
	}
	kept := ms[:0]
	for i, m := range ms {
		if i+1 < len(ms) && ms[i+1].key == m.key {
			continue // a later duplicate wins
		}
		if m.val != glua.LNil {
			kept = append(kept, m)
		}
	}
	clear(ms[len(kept):])
	return kept
}

// setMembers sets ms (sorted by key, keys unique, values not nil) in t, in
// that order.
func (tb *tableBuilder) setMembers(t *glua.LTable, ms []member) {
	for _, m := range ms {
		t.RawSetString(m.key, m.val)
	}
}
