package convert

import (
	glua "github.com/yuin/gopher-lua"
)

// State is the conversion state of one Lua state: its table builder
// (interned strings, reusable tables), its lazy proxies and the scratch
// buffers its conversions reuse. It is used by one call at a time, like
// the Lua state it belongs to.
type State struct {
	L       *glua.LState
	tables  *tableBuilder
	lazy    *lazyTables
	writer  jsonWriter
	members []member
	kv      []glua.LValue
}

// NewState prepares L for conversions: the metatable of its proxies, and
// the library functions that read tables raw (next, pairs, table.*...)
// wrapped to fill a proxy first. It must run before L's libraries are
// frozen.
func NewState(L *glua.LState) *State {
	tb := newTableBuilder(L)
	st := &State{L: L, tables: tb, lazy: newLazyTables(L, tb)}
	st.lazy.wrapRawReaders(L)
	return st
}

// EndCall ends a call: the proxies it left unfilled are detached from the
// caller's objects, and the tables built for it are kept for reuse.
func (st *State) EndCall() {
	st.lazy.detach()
	st.tables.release()
}

// converter returns a Go -> Lua converter; lazy makes nested containers
// proxies.
func (st *State) converter(lazy bool) converter {
	c := converter{L: st.L, tables: st.tables}
	if lazy {
		c.lazy = st.lazy
	}
	return c
}

// Fill makes t an ordinary table when it is an unfilled proxy, for Go code
// that reads tables raw.
func (st *State) Fill(t *glua.LTable) { st.lazy.fill(st.L, t) }

// Typed returns the Go value a table was made from when the script
// returned it untouched (see TypedProxy).
func (st *State) Typed(t *glua.LTable) (any, bool) { return st.lazy.typedOf(t) }

// Untouched returns the caller's Go value behind t (a map[string]any or
// []any) when t is a proxy whose members the script has not read, so it
// cannot have changed them: Go code may then read that value in place,
// as the script would see t, and must not modify it.
func (st *State) Untouched(t *glua.LTable) (any, bool) { return st.lazy.untouched(t) }

// TypedProxy returns a proxy of typed that remembers it, so that a
// result returned untouched need not be decoded; generic builds its JSON
// form when something first reads the proxy. generic must not fail.
func (st *State) TypedProxy(generic func() any, typed any) *glua.LTable {
	return st.lazy.typedProxy(st.L, generic, typed)
}

// String returns s as a Lua string, interned when short.
func (st *State) String(s string) glua.LValue { return st.tables.str(s) }

// writer returns the state's JSON writer, reset.
func (st *State) jsonWriter() *jsonWriter {
	st.writer.reset()
	st.writer.lazy = st.lazy
	return &st.writer
}
