package vm

import (
	glua "github.com/yuin/gopher-lua"
)

// Rough sizes, in bytes, of what a script can make big. They need not be
// exact: the footprint is compared with a budget of tens of MiB, and a
// script that builds that much is not an honest interpreter script.
const (
	stringOverhead = 16  // the string header
	tableOverhead  = 96  // an empty table
	entryBytes     = 48  // a table member (key, value, index)
	funcOverhead   = 64  // a closure
	upvalueBytes   = 32  // one of its upvalues
	maxFrameWalk   = 512 // frames walked at most (the call depth is bounded anyway)
)

// footprint measures what one call's Lua state holds: every value reachable
// from the registers of the call's frames and from the functions they run
// (their upvalues and environment). It looks only at the call's own
// objects, so what other goroutines allocate cannot count against it. A
// string referenced twice is counted twice (strings cannot be told apart
// without their addresses), which only makes the estimate conservative.
type footprint struct {
	limit int64
	total int64
	seen  map[any]struct{}
	work  []glua.LValue
}

// measure returns the bytes L holds, stopping early once over limit.
func (f *footprint) measure(L *glua.LState, limit int64) int64 {
	if f.seen == nil {
		f.seen = map[any]struct{}{}
	}
	clear(f.seen)
	f.work = f.work[:0]
	f.limit, f.total = limit, 0
	for level := 0; level < maxFrameWalk && f.total <= f.limit; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if fn, err := L.GetInfo("f", dbg, glua.LNil); err == nil {
			f.add(fn)
		}
		for no := 1; f.total <= f.limit; no++ {
			name, v := L.GetLocal(dbg, no)
			if name == "" {
				break
			}
			f.add(v)
		}
		f.drain()
	}
	// The current frame's registers, also when it is a Go function.
	for i, top := 1, L.GetTop(); i <= top; i++ {
		f.add(L.Get(i))
	}
	f.drain()
	clear(f.seen)
	f.work = f.work[:0]
	return f.total
}

func (f *footprint) add(v glua.LValue) {
	switch v := v.(type) {
	case glua.LString:
		f.total += int64(len(v)) + stringOverhead
	case *glua.LTable, *glua.LFunction, *glua.LUserData:
		if _, ok := f.seen[v]; ok {
			return
		}
		f.seen[v] = struct{}{}
		f.work = append(f.work, v)
	}
}

// drain walks the pending values until none is left or the total is over
// the limit.
func (f *footprint) drain() {
	for len(f.work) > 0 && f.total <= f.limit {
		v := f.work[len(f.work)-1]
		f.work = f.work[:len(f.work)-1]
		switch v := v.(type) {
		case *glua.LTable:
			f.total += tableOverhead
			f.add(v.Metatable)
			for k, val := v.Next(glua.LNil); k != glua.LNil && f.total <= f.limit; k, val = v.Next(k) {
				f.total += entryBytes
				f.add(k)
				f.add(val)
			}
		case *glua.LFunction:
			f.total += funcOverhead + upvalueBytes*int64(len(v.Upvalues))
			if v.Env != nil {
				f.add(v.Env)
			}
			for _, uv := range v.Upvalues {
				f.add(uv.Value())
			}
		case *glua.LUserData:
			f.add(v.Metatable)
		}
	}
}
