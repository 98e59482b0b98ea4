package convert

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"slices"
	"strconv"

	glua "github.com/yuin/gopher-lua"
)

// Lua -> Go, step 1: a Lua value becomes a JSON-like Go value, following
// the JSON encoding Karmada uses: an empty table is an (empty) array, a
// table with only the integer keys 1..n is an array, a table with only
// string keys is an object; anything else is an error.

// maxEncodeDepth bounds table nesting, so that converting a deep table
// cannot exhaust the goroutine stack.
const maxEncodeDepth = 1000

// MaxResultBytes bounds the strings (values and keys, each counted where
// it is referenced) of a table converted from Lua, and the JSON written
// for it. A script can return a table holding one 1 MiB string ten
// thousand times: it holds little, but its JSON is 10 GB. Results are
// objects, statuses and lists the controller writes to the API server,
// which refuses objects over 1.5 MiB (etcd's limit): 16 MiB is far above
// any result that could be stored.
const MaxResultBytes = 16 << 20

var errResultTooBig = fmt.Errorf("the result exceeds the limit of %d MiB", MaxResultBytes>>20)

var (
	errSparseArray = errors.New("cannot encode sparse array")
	errInvalidKeys = errors.New("cannot encode mixed or invalid key types")
	errNested      = errors.New("cannot encode recursively nested tables to JSON")
	errTooDeep     = fmt.Errorf("cannot encode tables nested deeper than %d levels", maxEncodeDepth)
)

// kvStack collects the members of tables without allocating a closure per
// table: the members of a table are pushed on top, used, then released, so
// nested tables stack above their parents.
type kvStack struct {
	kv []glua.LValue
}

func (s *kvStack) collect(t *glua.LTable) (start, end int) {
	start = len(s.kv)
	// Next hands out the keys boxed already (ForEach boxes every string
	// key again) and visits them in insertion order.
	for k, v := t.Next(glua.LNil); k != glua.LNil; k, v = t.Next(k) {
		s.kv = append(s.kv, k, v)
	}
	return start, len(s.kv)
}

func (s *kvStack) release(start int) {
	clear(s.kv[start:])
	s.kv = s.kv[:start]
}

// shapeOf classifies members (key, value pairs): n > 0 when the keys are
// exactly 1..n, strs when they are all strings.
func shapeOf(kv []glua.LValue) (n, strs int, err error) {
	nums, maxKey := 0, 0.0
	for i := 0; i < len(kv); i += 2 {
		switch key := kv[i].(type) {
		case glua.LString:
			strs++
		case glua.LNumber:
			nums++
			if f := float64(key); f != math.Trunc(f) || f < 1 {
				maxKey = math.Inf(1)
			} else if f > maxKey {
				maxKey = f
			}
		default:
			return 0, 0, errInvalidKeys
		}
	}
	switch {
	case nums > 0 && strs > 0:
		return 0, 0, errInvalidKeys
	case nums > 0 && maxKey != float64(nums):
		return 0, 0, errSparseArray
	}
	return nums, strs, nil
}

// encoder converts one result. Empty tables come out as empty []any, and
// empties counts them so that the repair step can be skipped when there are
// none.
type encoder struct {
	// ints converts integral numbers to int64 as decoding JSON into an
	// unstructured object does.
	ints    bool
	empties int
	path    []*glua.LTable
	members kvStack
	// lazy resolves proxies to their backing values (see lazy.go).
	lazy *lazyTables
	// share returns the backing values of untouched proxies as they are,
	// not copied, where converting them would give an equal value
	// (canonical); metadata, which callers change, is always copied.
	share bool
	// bytes counts what the result's JSON would hold (see MaxResultBytes).
	bytes int64
}

// grow counts a value of n bytes of text in the result.
func (e *encoder) grow(n int) error {
	e.bytes += int64(n) + 8
	if e.bytes > MaxResultBytes {
		return errResultTooBig
	}
	return nil
}

func (e *encoder) value(v glua.LValue) (any, error) {
	if s, ok := v.(glua.LString); ok {
		if err := e.grow(len(s)); err != nil {
			return nil, err
		}
	}
	switch t := v.(type) {
	case *glua.LNilType:
		return nil, nil
	case glua.LBool:
		return bool(t), nil
	case glua.LString:
		return string(t), nil
	case glua.LNumber:
		return e.number(float64(t))
	case *glua.LTable:
		return e.table(t)
	}
	return nil, fmt.Errorf("cannot encode %s to JSON", v.Type().String())
}

func (e *encoder) number(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	if e.ints {
		if i, ok := integral(f); ok {
			return i, nil
		}
	}
	return f, nil
}

// integral reports whether JSON-encoding f and decoding it into an
// unstructured object yields an int64: the shortest decimal form of f must
// parse as an int64.
func integral(f float64) (int64, bool) {
	if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	if f > -(1<<53) && f < 1<<53 {
		return int64(f), true
	}
	i, err := strconv.ParseInt(strconv.FormatFloat(f, 'f', -1, 64), 10, 64)
	return i, err == nil
}

// enter checks t against cycles and depth and pushes it on the path.
func enter(path []*glua.LTable, t *glua.LTable) ([]*glua.LTable, error) {
	for _, p := range path {
		if p == t {
			return path, errNested
		}
	}
	if len(path) >= maxEncodeDepth {
		return path, errTooDeep
	}
	return append(path, t), nil
}

func (e *encoder) table(t *glua.LTable) (any, error) {
	if m, ok := e.lazy.partialObject(t); ok {
		return e.partialObject(t, m)
	}
	if v, ok := e.lazy.backingOf(t); ok {
		return e.goValue(v, len(e.path))
	}
	var err error
	if e.path, err = enter(e.path, t); err != nil {
		return nil, err
	}
	defer func() { e.path = e.path[:len(e.path)-1] }()
	root := len(e.path) == 1 && e.share
	if root {
		defer func() { e.share = true }()
	}
	start, end := e.members.collect(t)
	defer e.members.release(start)
	n, strs, err := shapeOf(e.members.kv[start:end])
	switch {
	case err != nil:
		return nil, err
	case n == 0 && strs == 0:
		e.empties++
		return []any{}, nil
	case n > 0:
		return e.array(t, n)
	}
	return e.object(start, end, root)
}

// metadataKey is the root member never shared: callers set its fields on
// the result (resourceVersion...).
const metadataKey = "metadata"

func (e *encoder) array(t *glua.LTable, n int) (any, error) {
	out := make([]any, n)
	for i := 1; i <= n; i++ {
		v, err := e.value(t.RawGetInt(i))
		if err != nil {
			return nil, err
		}
		out[i-1] = v
	}
	return out, nil
}

// object converts the members collected in kv[start:end]. For the root
// table of a sharing encoder, every member but metadata may share the
// template's values.
func (e *encoder) object(start, end int, root bool) (any, error) {
	out := make(map[string]any, (end-start)/2)
	for i := start; i < end; i += 2 {
		k := string(e.members.kv[i].(glua.LString))
		if err := e.grow(len(k)); err != nil {
			return nil, err
		}
		if root {
			e.share = k != metadataKey
		}
		v, err := e.value(e.members.kv[i+1])
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

// goValue converts the backing value of a proxy as if it had been filled
// into Lua and encoded: null members and elements vanish, numbers go
// through float64, containers left empty are empty tables.
func (e *encoder) goValue(v any, depth int) (any, error) {
	if depth >= maxEncodeDepth {
		return nil, errTooDeep
	}
	if e.share && depth > 0 && canonical(v, depth) {
		return v, nil
	}
	switch t := v.(type) {
	case string:
		if err := e.grow(len(t)); err != nil {
			return nil, err
		}
		return t, nil
	case bool:
		return t, nil
	case int64:
		return e.number(float64(t))
	case float64:
		return e.number(t)
	case int:
		return e.number(float64(t))
	case int32:
		return e.number(float64(t))
	case map[string]any:
		return e.goObject(t, depth)
	case []any:
		return e.goArray(t, depth)
	}
	g, err := generic(v)
	if err != nil {
		return nil, err
	}
	return e.goValue(g, depth)
}

func (e *encoder) goObject(m map[string]any, depth int) (any, error) {
	out := make(map[string]any, len(m))
	share := e.share
	defer func() { e.share = share }()
	for k, v := range m {
		if v == nil {
			continue
		}
		if depth == 0 {
			e.share = share && k != metadataKey
		}
		gv, err := e.goValue(v, depth+1)
		if err != nil {
			return nil, err
		}
		out[k] = gv
	}
	return e.orEmpty(out), nil
}

// orEmpty is out, or an empty table's []any (counted in empties) when no
// member is left.
func (e *encoder) orEmpty(out map[string]any) any {
	if len(out) == 0 {
		e.empties++
		return []any{}
	}
	return out
}

func (e *encoder) goArray(s []any, depth int) (any, error) {
	out := make([]any, 0, len(s))
	for _, v := range s {
		if v == nil {
			continue
		}
		gv, err := e.goValue(v, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, gv)
	}
	if len(out) == 0 {
		e.empties++
	}
	return out, nil
}

// canonical reports whether converting v into Lua and back gives v:
// strings, booleans, int64 exact in a float64, non-integral finite
// float64, and non-empty objects and arrays without nulls of those.
func canonical(v any, depth int) bool {
	if depth >= maxEncodeDepth {
		return false
	}
	switch t := v.(type) {
	case string, bool:
		return true
	case int64:
		return t > -(1<<53) && t < 1<<53
	case float64:
		return t != math.Trunc(t) && !math.IsNaN(t) && !math.IsInf(t, 0)
	case map[string]any:
		return len(t) > 0 && allCanonical(maps.Values(t), depth+1)
	case []any:
		return len(t) > 0 && allCanonical(slices.Values(t), depth+1)
	}
	return false
}

// allCanonical reports whether every one of values is canonical and not
// null.
func allCanonical(values iter.Seq[any], depth int) bool {
	for v := range values {
		if v == nil || !canonical(v, depth) {
			return false
		}
	}
	return true
}

// partialObject encodes an unfilled proxy whose handed-out members may have
// been changed by the script: those come from Lua, the others from Go.
func (e *encoder) partialObject(t *glua.LTable, m map[string]any) (any, error) {
	var err error
	if e.path, err = enter(e.path, t); err != nil {
		return nil, err
	}
	defer func() { e.path = e.path[:len(e.path)-1] }()
	share := e.share
	defer func() { e.share = share }()
	out := make(map[string]any, len(m))
	for k, v := range m {
		if v == nil {
			continue
		}
		var gv any
		if len(e.path) == 1 {
			e.share = share && k != metadataKey
		}
		if child, ok := e.lazy.child(t, k); ok {
			if child == glua.LNil {
				continue // removed by the script
			}
			gv, err = e.value(child)
		} else {
			gv, err = e.goValue(v, len(e.path))
		}
		if err != nil {
			return nil, err
		}
		out[k] = gv
	}
	return e.orEmpty(out), nil
}
