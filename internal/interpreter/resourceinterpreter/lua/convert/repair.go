package convert

import (
	"encoding/json"
	"strings"

	glua "github.com/yuin/gopher-lua"
)

// Lua -> Go, step 2: empty-container repair. Lua cannot tell {} from [],
// so every empty table is encoded as []. Like Karmada, a nested empty array
// becomes {} when the same index-less path holds an empty object in one of
// the reference objects (the inputs of Retain and ReviseReplica), stays []
// when it holds an empty array there, and is removed otherwise.

type pathSet map[string]struct{}

// emptyPaths lists where the references hold empty objects and arrays.
type emptyPaths struct {
	objects, arrays pathSet
}

func collectEmptyPaths(refs []map[string]any) *emptyPaths {
	ep := &emptyPaths{objects: pathSet{}, arrays: pathSet{}}
	for _, r := range refs {
		if r != nil {
			ep.walk(r, "")
		}
	}
	return ep
}

func (ep *emptyPaths) walk(v any, path string) {
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return
		}
		if len(t) == 0 && path != "" {
			ep.objects[path] = struct{}{}
		}
		for k, e := range t {
			ep.walk(e, joinPath(path, k))
		}
	case []any:
		if t == nil {
			return
		}
		if len(t) == 0 && path != "" {
			ep.arrays[path] = struct{}{}
		}
		for _, e := range t {
			ep.walk(e, path)
		}
	case nil, string, bool, int64, float64, int, int32:
	default:
		if data, err := json.Marshal(t); err == nil {
			var g any
			if json.Unmarshal(data, &g) == nil {
				ep.walk(g, path)
			}
		}
	}
}

var pathEscaper = strings.NewReplacer(".", `\.`, ":", `\:`)

func joinPath(path, key string) string {
	if strings.ContainsAny(key, ".:") {
		key = pathEscaper.Replace(key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// repair fixes the nested empty arrays of v in place; keep is false when v
// itself is to be removed.
func (ep *emptyPaths) repair(v any, path string) (out any, keep bool) {
	if canonical(v, 0) {
		// No empty container inside (and v may be shared with the
		// caller's object: it must not be written to).
		return v, true
	}
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if nv, ok := ep.repair(e, joinPath(path, k)); ok {
				t[k] = nv
			} else {
				delete(t, k)
			}
		}
		return t, true
	case []any:
		if len(t) == 0 {
			if _, ok := ep.objects[path]; ok {
				return map[string]any{}, true
			}
			if _, ok := ep.arrays[path]; ok {
				return t, true
			}
			return nil, false
		}
		kept := t[:0]
		for _, e := range t {
			if nv, ok := ep.repair(e, path); ok {
				kept = append(kept, nv)
			}
		}
		return kept, true
	}
	return v, true
}

// shape of the Go value a result is decoded into.
type shape int

const (
	structShape shape = iota
	sliceShape
)

// fromLua converts a result table for a target of the given shape:
// encoding, then repair against refs. ints converts integral numbers to
// int64 (unstructured targets).
func (st *State) fromLua(t *glua.LTable, target shape, ints, share bool, refs ...map[string]any) (any, error) {
	// The encoder reuses the state's member stack.
	enc := &encoder{ints: ints, lazy: st.lazy, share: share && ints}
	enc.members.kv = st.kv[:0]
	defer func() { st.kv = enc.members.kv[:0] }()
	out, err := enc.value(t)
	if err != nil {
		return nil, err
	}
	if arr, ok := out.([]any); ok && len(arr) == 0 {
		if target == structShape {
			return map[string]any{}, nil
		}
		return arr, nil
	}
	if enc.empties == 0 {
		return out, nil
	}
	var ep *emptyPaths
	if len(refs) > 0 {
		ep = collectEmptyPaths(refs)
	} else {
		ep = &emptyPaths{}
	}
	out, _ = ep.repair(out, "")
	return out, nil
}
