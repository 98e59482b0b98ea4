package lua

import (
	"encoding/binary"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	glua "github.com/yuin/gopher-lua"
)

// Building object tables in one go (the tables of status items, and the
// members of filled proxies). gopher-lua's RawSetString allocates for
// every new string key: the key is boxed into an LValue for the key list
// and for the key -> position index that next() uses, and the key list and
// the index both start empty and grow. A table whose members are all known
// up front (decoded JSON, a Go map) instead gets its member map sized once
// and keys boxed once per state (interned).
//
// Tables of the same shape (the same sorted keys, as the statuses of one
// kind from every cluster) can even share the key list and the index: those
// are only read, by next(), and only written when a key is added. A shared
// table carries a hidden metatable whose __newindex, which Lua calls only
// for keys the table does not hold, gives the table its own copy of the
// list and the index first (and drops the metatable); rewriting or
// deleting a member held does not touch them. Scripts cannot see the
// metatable (getmetatable, setmetatable, rawset, rawget are disabled, as
// for the proxies of lazy.go), and it has no other metamethod, so every
// other operation behaves as on a plain table.
//
// The member maps of status tables are reused by the next calls of the
// state (release), and tables are allocated a chunk at a time.
//
// That needs the unexported fields of glua.LTable, reached through a copy
// of its layout; layoutMatches checks the copy against the real type field
// by field (name, type, offset) when the package loads, and the builder
// falls back to RawSetString when they differ, so a gopher-lua upgrade that
// changes the layout costs speed, never correctness
// (TestTableLayoutMatches fails then, to say so).

// ltable mirrors glua.LTable (gopher-lua v1.1.2).
type ltable struct {
	Metatable glua.LValue
	array     []glua.LValue
	dict      map[glua.LValue]glua.LValue
	strdict   map[string]glua.LValue
	keys      []glua.LValue
	k2i       map[glua.LValue]int
}

var tableLayoutOK = layoutMatches(reflect.TypeOf(glua.LTable{}), reflect.TypeOf(ltable{}))

func layoutMatches(real, mirror reflect.Type) bool {
	if real.Size() != mirror.Size() || real.NumField() != mirror.NumField() {
		return false
	}
	for i := range real.NumField() {
		r, m := real.Field(i), mirror.Field(i)
		if r.Name != m.Name || r.Type != m.Type || r.Offset != m.Offset {
			return false
		}
	}
	return true
}

func internals(t *glua.LTable) *ltable { return (*ltable)(unsafe.Pointer(t)) }

// Bounds of a state's caches (a few hundred KiB at worst): once full, the
// interned strings and the shapes are dropped and refilled, so that unusual
// inputs cannot grow them without end.
const (
	maxInternedLen   = 64
	maxInterned      = 1024
	maxShapes        = 256
	maxSharedMembers = 32
	// Member maps are reused up to these bounds.
	maxFreeMaps     = 256
	maxReusedMapLen = 32
)

// tableBuilder builds the tables of a state's conversions. A nil builder
// (a state without scratch space) sets members with RawSetString.
type tableBuilder struct {
	interned map[string]glua.LValue
	shapes   map[string]*tableShape
	sig      []byte
	recent   [4]*tableShape
	// mt is the metatable of tables sharing a shape.
	mt *glua.LTable
	// built are the argument tables of the running call whose member maps
	// go back to free when the call ends (see release).
	built []*glua.LTable
	free  []map[string]glua.LValue
	// slab holds tables not handed out yet, allocated a chunk at a time.
	slab []glua.LTable
}

// slabSize is the number of tables allocated at once.
const slabSize = 32

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

// tableShape is the key list and index shared by tables of one shape;
// never modified. A shape is looked up by its keys in the order the
// members come in (document order for JSON), so that the members need no
// sorting: doc holds those keys (interned) in that order, keys the same
// sorted, for next().
type tableShape struct {
	doc  []string
	keys []glua.LValue
	k2i  map[glua.LValue]int
	// dup is set when a key repeats: such members need normalizing.
	dup bool
}

func newTableBuilder(L *glua.LState) *tableBuilder {
	tb := &tableBuilder{}
	tb.mt = L.CreateTable(0, 1)
	tb.mt.RawSetString("__newindex", L.NewFunction(tb.newIndex))
	return tb
}

// str returns s as a Lua string value that does not refer to the memory
// of s (which may be a view of a caller's buffer): a short s is interned
// (boxing a string allocates, and objects repeat the same keys and
// values), a long one copied.
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

// object returns a new table holding the members ms, given in any order;
// a nil value leaves its key out and of repeated keys the last wins (as
// encoding/json decodes objects). next() and pairs() visit the members in
// key order, as after RawSetString in key order. Keys are copied (ms may
// be a view of a caller's buffer). The table shares its key list and index
// with the tables of the same shape, and is emptied when the call ends
// (release).
func (tb *tableBuilder) object(ms []member) *glua.LTable {
	t := tb.newTable()
	if len(ms) == 0 {
		return t
	}
	if tb == nil || !tableLayoutOK {
		for _, m := range normalize(ms) {
			t.RawSetString(strings.Clone(m.key), m.val)
		}
		return t
	}
	clean := len(ms) <= maxSharedMembers
	for _, m := range ms {
		if m.val == glua.LNil {
			clean = false
			break
		}
	}
	var sh *tableShape
	if clean {
		if sh = tb.shape(ms); sh.dup {
			clean = false
		}
	}
	if !clean {
		ms = normalize(ms)
		if len(ms) > maxSharedMembers {
			tb.setMembers(t, ms)
			tb.built = append(tb.built, t)
			return t
		}
		sh = tb.shape(ms)
	}
	strdict := tb.memberMap(len(ms))
	for i, m := range ms {
		strdict[sh.doc[i]] = m.val
	}
	in := internals(t)
	in.strdict, in.keys, in.k2i = strdict, sh.keys, sh.k2i
	t.Metatable = tb.mt
	tb.built = append(tb.built, t)
	return t
}

// normalize sorts ms by key in place (stably), keeps the last of repeated
// keys and drops nil values.
func normalize(ms []member) []member {
	slices.SortStableFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
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

// release ends a call: the tables object built are emptied and their
// member maps kept for the next calls. The call's results are Go values by
// then; a table the script kept in a global (relying on globals across
// calls is unsupported: calls land on any pooled state) is found empty in
// later calls, as the proxies of lazy.go are.
func (tb *tableBuilder) release() {
	if tb == nil {
		return
	}
	for i, t := range tb.built {
		in := internals(t)
		tb.recycle(in.strdict)
		// (Field by field: fewer write barriers than zeroing *in.)
		in.strdict, in.keys, in.k2i = nil, nil, nil
		if in.array != nil || in.dict != nil {
			in.array, in.dict = nil, nil
		}
		t.Metatable = glua.LNil
		tb.built[i] = nil
	}
	tb.built = tb.built[:0]
}

// recycle keeps m, a member map no table refers to any more, for reuse.
func (tb *tableBuilder) recycle(m map[string]glua.LValue) {
	if tb != nil && m != nil && len(m) <= maxReusedMapLen && len(tb.free) < maxFreeMaps {
		clear(m)
		tb.free = append(tb.free, m)
	}
}

// memberMap returns an empty map for n members.
func (tb *tableBuilder) memberMap(n int) map[string]glua.LValue {
	if tb == nil {
		return make(map[string]glua.LValue, n)
	}
	if k := len(tb.free); k > 0 && n <= 8 {
		m := tb.free[k-1]
		tb.free[k-1] = nil
		tb.free = tb.free[:k-1]
		return m
	}
	return make(map[string]glua.LValue, n)
}

// setMembers sets ms (sorted by key, keys unique, values not nil) in t, a
// table without any member or metatable yet, with a key list and index of
// its own.
func (tb *tableBuilder) setMembers(t *glua.LTable, ms []member) {
	if len(ms) == 0 {
		return
	}
	in := internals(t)
	if tb == nil || !tableLayoutOK || in.strdict != nil || in.keys != nil || in.dict != nil || t.Metatable != glua.LNil {
		for _, m := range ms {
			t.RawSetString(m.key, m.val)
		}
		return
	}
	strdict := tb.memberMap(len(ms))
	// Room for a few keys the script may add.
	keys := make([]glua.LValue, len(ms), len(ms)+4)
	k2i := make(map[glua.LValue]int, len(ms))
	for i, m := range ms {
		k := tb.str(m.key)
		strdict[string(k.(glua.LString))] = m.val
		keys[i] = k
		k2i[k] = i
	}
	in.strdict, in.keys, in.k2i = strdict, keys, k2i
}

// shape returns the shape of the keys of ms, in their order.
func (tb *tableBuilder) shape(ms []member) *tableShape {
	// Objects of a few shapes tend to alternate (a status, its item, the
	// next status...): compare with the last ones before hashing.
	for i, sh := range tb.recent {
		if sh != nil && sh.matches(ms) {
			if i > 0 {
				copy(tb.recent[1:i+1], tb.recent[:i])
				tb.recent[0] = sh
			}
			return sh
		}
	}
	sh := tb.lookupShape(ms)
	copy(tb.recent[1:], tb.recent[:])
	tb.recent[0] = sh
	return sh
}

func (sh *tableShape) matches(ms []member) bool {
	if len(sh.doc) != len(ms) {
		return false
	}
	for i, m := range ms {
		if sh.doc[i] != m.key {
			return false
		}
	}
	return true
}

func (tb *tableBuilder) lookupShape(ms []member) *tableShape {
	sig := tb.sig[:0]
	for _, m := range ms {
		sig = binary.AppendUvarint(sig, uint64(len(m.key)))
		sig = append(sig, m.key...)
	}
	tb.sig = sig
	if sh, ok := tb.shapes[string(sig)]; ok {
		return sh
	}
	sh := &tableShape{doc: make([]string, len(ms))}
	for i, m := range ms {
		sh.doc[i] = string(tb.str(m.key).(glua.LString))
	}
	sorted := slices.Clone(sh.doc)
	slices.Sort(sorted)
	sh.keys = make([]glua.LValue, len(sorted))
	sh.k2i = make(map[glua.LValue]int, len(sorted))
	for i, k := range sorted {
		if i > 0 && sorted[i-1] == k {
			sh.dup = true
		}
		sh.keys[i] = tb.str(k)
		sh.k2i[sh.keys[i]] = i
	}
	if tb.shapes == nil || len(tb.shapes) >= maxShapes {
		tb.shapes = make(map[string]*tableShape, 64)
	}
	tb.shapes[string(sig)] = sh
	return sh
}

// own gives a shared table its own key list and index.
func (tb *tableBuilder) own(t *glua.LTable) {
	if t.Metatable != tb.mt {
		return
	}
	in := internals(t)
	keys := make([]glua.LValue, len(in.keys), len(in.keys)+4)
	copy(keys, in.keys)
	k2i := make(map[glua.LValue]int, len(keys)+4)
	for i, k := range keys {
		k2i[k] = i
	}
	in.keys, in.k2i = keys, k2i
	t.Metatable = glua.LNil
}

// newIndex is the __newindex of shared tables: Lua calls it to add a key.
func (tb *tableBuilder) newIndex(L *glua.LState) int {
	t := L.CheckTable(1)
	tb.own(t)
	// As setting it on a plain table: a nil or NaN key raises the same
	// error, at the script's position (errors skip Go frames).
	L.RawSet(t, L.Get(2), L.Get(3))
	return 0
}

func builderOf(L *glua.LState) *tableBuilder {
	if b := scratchOf(L); b != nil {
		return b.tables
	}
	return nil
}
