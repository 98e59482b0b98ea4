package convert

import (
	glua "github.com/yuin/gopher-lua"
)

// Lazy conversion. Converting a whole object into Lua tables costs more
// than the rest of a call (gopher-lua allocates several times per string
// key), and scripts read a few fields. So an object or array is first an
// empty "proxy" table backed by the Go value, with a shared metatable:
//   - __index on a string key of an object proxy converts just that member
//     (a nested object or array becomes a proxy) and stores it in the
//     proxy's side table of handed-out children when it is a table, so
//     that every read gives the same table (the script may then change
//     it, or remove it from the proxy, which fills the proxy first);
//   - any other access (__index on other keys, __newindex, __len) fills the
//     proxy with all its members (reusing the ones handed out) and drops
//     the metatable, after which it is an ordinary table.
// The sandbox's functions that read tables raw (next, pairs, ipairs,
// unpack, table.*, os.time) fill proxies first; the Go side writes
// unfilled proxies from their backing values (and handed-out members from
// Lua, as the script may have changed them); scripts cannot see
// metatables (getmetatable, rawget, ... are disabled). So a script cannot
// tell a proxy from the table Karmada would have built.
//
// Backing values are the caller's objects, which it may change once the
// call returns. So a call ends by detaching its unfilled proxies: a script
// that keeps parts of its arguments in globals finds them empty in later
// calls (Karmada keeps them; relying on globals across calls is
// unsupported there too, as calls land on random pooled states).

// lazyTables holds a state's proxies and their backing values.
type lazyTables struct {
	mt      *glua.LTable
	tables  *tableBuilder
	backing map[*glua.LTable]any
	// typed remembers the Go value a proxy was made from (the results of
	// the kube module), so that a result returned untouched is not decoded.
	typed map[*glua.LTable]any
	// children are the members already handed out from unfilled object
	// proxies (listed in partial), so that reading a member twice gives
	// the same table and filling the proxy later keeps it.
	children map[childKey]glua.LValue
	partial  map[*glua.LTable]struct{}
	keys     []string
	members  []member
}

type childKey struct {
	t *glua.LTable
	k string
}

func newLazyTables(L *glua.LState, tables *tableBuilder) *lazyTables {
	lz := &lazyTables{
		tables:   tables,
		backing:  map[*glua.LTable]any{},
		typed:    map[*glua.LTable]any{},
		children: map[childKey]glua.LValue{},
		partial:  map[*glua.LTable]struct{}{},
	}
	mt := L.CreateTable(0, 3)
	mt.RawSetString("__index", L.NewFunction(lz.index))
	mt.RawSetString("__newindex", L.NewFunction(lz.newIndex))
	mt.RawSetString("__len", L.NewFunction(lz.length))
	lz.mt = mt
	return lz
}

// proxy returns an unfilled table backed by v, a map[string]any or []any.
func (lz *lazyTables) proxy(L *glua.LState, v any) *glua.LTable {
	t := lz.tables.newTable()
	t.Metatable = lz.mt
	lz.backing[t] = v
	return t
}

// deferredGeneric builds a typed proxy's backing value on first use:
// scripts mostly return the kube module's results untouched, and the
// typed value is then taken as it is, so their JSON form is usually never
// needed. It must not fail or raise: it may run after the script, when
// the Go side writes the proxy.
type deferredGeneric func() any

// backingOf returns the value behind an unfilled proxy.
func (lz *lazyTables) backingOf(t *glua.LTable) (any, bool) {
	if lz == nil || t.Metatable != lz.mt {
		return nil, false
	}
	v, ok := lz.backing[t]
	if build, deferred := v.(deferredGeneric); deferred {
		v = build()
		lz.backing[t] = v
	}
	return v, ok
}

// isProxy reports whether t is an unfilled proxy, without building a
// deferred backing value.
func (lz *lazyTables) isProxy(t *glua.LTable) bool {
	if lz == nil || t.Metatable != lz.mt {
		return false
	}
	_, ok := lz.backing[t]
	return ok
}

// untouched returns the value behind an unfilled proxy none of whose
// members was handed out: the script has seen it only as a whole.
func (lz *lazyTables) untouched(t *glua.LTable) (any, bool) {
	v, ok := lz.backingOf(t)
	if !ok {
		return nil, false
	}
	if _, opened := lz.partial[t]; opened {
		return nil, false
	}
	return v, true
}

// typedProxy returns a proxy for typed whose backing value, its JSON
// form, generic builds when the script or the Go side first reads it.
func (lz *lazyTables) typedProxy(L *glua.LState, generic func() any, typed any) *glua.LTable {
	t := lz.proxy(L, deferredGeneric(generic))
	lz.typed[t] = typed
	return t
}

// typedOf returns the Go value behind an untouched typed proxy.
func (lz *lazyTables) typedOf(t *glua.LTable) (any, bool) {
	if !lz.isProxy(t) {
		return nil, false
	}
	v, ok := lz.typed[t]
	return v, ok
}

// fill makes t an ordinary table holding its members.
func (lz *lazyTables) fill(L *glua.LState, t *glua.LTable) {
	v, ok := lz.backingOf(t)
	if !ok {
		return
	}
	delete(lz.backing, t)
	delete(lz.typed, t)
	t.Metatable = glua.LNil
	c := converter{L: L, lazy: lz, keys: lz.keys[:0], members: lz.members[:0], tables: lz.tables}
	if _, ok := lz.partial[t]; ok {
		c.handedOut = t
	}
	var err error
	switch m := v.(type) {
	case map[string]any:
		err = c.fillObject(t, m)
	case []any:
		err = c.fillArray(t, m)
	}
	delete(lz.partial, t)
	lz.keys, lz.members = c.keys[:0], c.members[:0]
	if err != nil {
		L.RaiseError("convert object to Lua: %v", err)
	}
}

func (lz *lazyTables) index(L *glua.LState) int {
	t := L.CheckTable(1)
	if v, ok := lz.member(L, t, L.Get(2)); ok {
		L.Push(v)
		return 1
	}
	lz.fill(L, t)
	L.Push(L.GetTable(t, L.Get(2)))
	return 1
}

// member reads a string-keyed member of an unfilled object proxy without
// filling it: scalars are converted, nested containers become proxies
// remembered as children of t.
func (lz *lazyTables) member(L *glua.LState, t *glua.LTable, key glua.LValue) (glua.LValue, bool) {
	k, ok := key.(glua.LString)
	if !ok {
		return nil, false
	}
	v, _ := lz.backingOf(t)
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	ck := childKey{t, string(k)}
	if c, ok := lz.children[ck]; ok {
		return c, true
	}
	c := converter{L: L, lazy: lz, tables: lz.tables}
	lv, err := c.value(m[string(k)])
	if err != nil {
		L.RaiseError("convert object to Lua: %v", err)
	}
	if _, isTable := lv.(*glua.LTable); !isTable {
		return lv, true
	}
	lz.children[ck] = lv
	lz.partial[t] = struct{}{}
	delete(lz.typed, t) // the member may be changed
	return lv, true
}

// child returns member k of t as the script sees it when it was handed
// out (ok); LNil when the script removed it since.
func (lz *lazyTables) child(t *glua.LTable, k string) (glua.LValue, bool) {
	c, ok := lz.children[childKey{t, k}]
	return c, ok
}

// removed reports whether member k of t was handed out, then removed by
// the script.
func (lz *lazyTables) removed(t *glua.LTable, k string) bool {
	c, ok := lz.child(t, k)
	return ok && c == glua.LNil
}

// partialObject returns the backing map of an unfilled proxy some of whose
// members were handed out: those must be read from Lua, the rest from Go.
func (lz *lazyTables) partialObject(t *glua.LTable) (map[string]any, bool) {
	if lz == nil {
		return nil, false
	}
	if _, ok := lz.partial[t]; !ok {
		return nil, false
	}
	v, ok := lz.backingOf(t)
	if !ok {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

func (lz *lazyTables) newIndex(L *glua.LState) int {
	t := L.CheckTable(1)
	lz.fill(L, t)
	L.SetTable(t, L.Get(2), L.Get(3))
	return 0
}

func (lz *lazyTables) length(L *glua.LState) int {
	t := L.CheckTable(1)
	lz.fill(L, t)
	L.Push(glua.LNumber(t.Len()))
	return 1
}

// detach turns the unfilled proxies into empty ordinary tables and
// forgets their backing values.
func (lz *lazyTables) detach() {
	for t := range lz.backing {
		t.Metatable = glua.LNil
	}
	clear(lz.backing)
	clear(lz.typed)
	clear(lz.children)
	clear(lz.partial)
}

// fillArg fills argument i when it is a proxy.
func (lz *lazyTables) fillArg(L *glua.LState, i int) {
	if t, ok := L.Get(i).(*glua.LTable); ok {
		lz.fill(L, t)
	}
}

// rawReaders are the library functions that read their first argument
// without metamethods.
var rawReaders = map[string][]string{
	"":      {"next", "pairs", "ipairs", "unpack"},
	"table": {"getn", "maxn", "concat", "insert", "remove", "sort"},
	"os":    {"time"},
}

// rawWriters are the table functions among them that also write it raw.
var rawWriters = map[string]bool{"insert": true, "remove": true, "sort": true}

// wrapRawReaders makes the raw readers fill a proxy argument first. A
// wrapper runs the original Go function in its own frame, with the same
// upvalues, so that error messages still name the function.
func (lz *lazyTables) wrapRawReaders(L *glua.LState) {
	for lib, names := range rawReaders {
		tbl := L.Get(glua.GlobalsIndex).(*glua.LTable)
		if lib != "" {
			tbl = tbl.RawGetString(lib).(*glua.LTable)
		}
		for _, name := range names {
			orig, ok := tbl.RawGetString(name).(*glua.LFunction)
			if !ok || orig.GFunction == nil {
				panic("lua: " + lib + "." + name + " is not a Go function")
			}
			upvalues := make([]glua.LValue, len(orig.Upvalues))
			for i, uv := range orig.Upvalues {
				upvalues[i] = uv.Value()
			}
			gfn := orig.GFunction
			writes := lib == "table" && rawWriters[name]
			tbl.RawSetString(name, L.NewClosure(func(L *glua.LState) int {
				lz.fillArg(L, 1)
				if writes {
					lz.tables.touched(L, 1)
				}
				return gfn(L)
			}, upvalues...))
		}
	}
}
