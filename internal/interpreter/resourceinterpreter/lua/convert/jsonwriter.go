package convert

import (
	"math"
	"slices"
	"sort"
	"strconv"

	glua "github.com/yuin/gopher-lua"
)

// jsonWriter writes a Lua value as JSON for decoding into a typed Go value.
// It is the fast path of "encode, repair without references, decode": the
// same tables are accepted and rejected as by encoder, nested empty tables
// are left out (which is what the repair does without references), and
// numbers are formatted as encoding/json formats float64. Object keys are
// not sorted: the bytes are only decoded, never stored.
type jsonWriter struct {
	// sorted writes object members in key order (canonical output).
	sorted  bool
	buf     []byte
	path    []*glua.LTable
	members kvStack
	// lazy resolves proxies to their backing values (see lazy.go).
	lazy *lazyTables
	keys []string
	err  error
}

// reset prepares a reused writer.
func (w *jsonWriter) reset() {
	w.buf, w.path, w.err, w.sorted = w.buf[:0], w.path[:0], nil, false
	w.members.release(0)
}

// writeRoot writes v; an empty root table is {} or [] per target.
func (w *jsonWriter) writeRoot(v glua.LValue, target shape) error {
	if !w.value(v) {
		if target == structShape {
			w.buf = append(w.buf, "{}"...)
		} else {
			w.buf = append(w.buf, "[]"...)
		}
	}
	return w.err
}

// value writes v and reports false when v is an empty table to be left out.
func (w *jsonWriter) value(v glua.LValue) bool {
	if w.err != nil {
		return true
	}
	switch t := v.(type) {
	case *glua.LNilType:
		w.buf = append(w.buf, "null"...)
	case glua.LBool:
		w.buf = strconv.AppendBool(w.buf, bool(t))
	case glua.LString:
		w.str(string(t))
	case glua.LNumber:
		w.number(float64(t))
	case *glua.LTable:
		return w.table(t)
	default:
		_, w.err = (&encoder{}).value(v)
	}
	return true
}

func (w *jsonWriter) number(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		_, w.err = (&encoder{}).number(f)
		return
	}
	w.buf = appendJSONFloat(w.buf, f)
}

// appendJSONFloat formats f as encoding/json does.
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

func (w *jsonWriter) table(t *glua.LTable) bool {
	if m, ok := w.lazy.partialObject(t); ok {
		return w.partialObject(t, m)
	}
	if v, ok := w.lazy.backingOf(t); ok {
		return w.goValue(v, len(w.path))
	}
	var err error
	if w.path, err = enter(w.path, t); err != nil {
		w.err = err
		return true
	}
	defer func() { w.path = w.path[:len(w.path)-1] }()
	start, end := w.members.collect(t)
	defer w.members.release(start)
	n, strs, err := shapeOf(w.members.kv[start:end])
	switch {
	case err != nil:
		w.err = err
		return true
	case n == 0 && strs == 0:
		return false
	case n > 0:
		w.array(t, n)
	default:
		w.object(start, end)
	}
	return true
}

func (w *jsonWriter) array(t *glua.LTable, n int) {
	w.buf = append(w.buf, '[')
	first := true
	for i := 1; i <= n && w.err == nil; i++ {
		mark := len(w.buf)
		if !first {
			w.buf = append(w.buf, ',')
		}
		if w.value(t.RawGetInt(i)) {
			first = false
		} else {
			w.buf = w.buf[:mark]
		}
	}
	w.buf = append(w.buf, ']')
}

func (w *jsonWriter) object(start, end int) {
	if w.sorted {
		sortMembers(w.members.kv[start:end])
	}
	w.buf = append(w.buf, '{')
	first := true
	for i := start; i < end && w.err == nil; i += 2 {
		mark := len(w.buf)
		if !first {
			w.buf = append(w.buf, ',')
		}
		w.str(string(w.members.kv[i].(glua.LString)))
		w.buf = append(w.buf, ':')
		if w.value(w.members.kv[i+1]) {
			first = false
		} else {
			w.buf = w.buf[:mark]
		}
	}
	w.buf = append(w.buf, '}')
}

const hexDigits = "0123456789abcdef"

// str writes s as a JSON string. Invalid UTF-8 is written as is; decoding
// turns it into U+FFFD, as encoding it with encoding/json would.
func (w *jsonWriter) str(s string) {
	if len(w.buf)+len(s) > MaxResultBytes {
		w.err = errResultTooBig
		return
	}
	w.buf = append(w.buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		w.buf = append(w.buf, s[start:i]...)
		switch c {
		case '"', '\\':
			w.buf = append(w.buf, '\\', c)
		case '\n':
			w.buf = append(w.buf, '\\', 'n')
		case '\r':
			w.buf = append(w.buf, '\\', 'r')
		case '\t':
			w.buf = append(w.buf, '\\', 't')
		default:
			w.buf = append(w.buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	w.buf = append(w.buf, s[start:]...)
	w.buf = append(w.buf, '"')
}

// sortMembers sorts (string key, value) pairs by key.
func sortMembers(kv []glua.LValue) {
	if len(kv) > 32 {
		sort.Sort(memberPairs(kv))
		return
	}
	for i := 2; i < len(kv); i += 2 {
		for j := i; j >= 2 && kv[j].(glua.LString) < kv[j-2].(glua.LString); j -= 2 {
			kv[j], kv[j-2] = kv[j-2], kv[j]
			kv[j+1], kv[j-1] = kv[j-1], kv[j+1]
		}
	}
}

type memberPairs []glua.LValue

func (p memberPairs) Len() int           { return len(p) / 2 }
func (p memberPairs) Less(i, j int) bool { return p[2*i].(glua.LString) < p[2*j].(glua.LString) }
func (p memberPairs) Swap(i, j int) {
	p[2*i], p[2*j] = p[2*j], p[2*i]
	p[2*i+1], p[2*j+1] = p[2*j+1], p[2*i+1]
}

// goValue writes the backing value of a proxy as the filled table would be
// written; false when it is an empty container to be left out.
func (w *jsonWriter) goValue(v any, depth int) bool {
	if w.err != nil {
		return true
	}
	if depth >= maxEncodeDepth {
		w.err = errTooDeep
		return true
	}
	switch t := v.(type) {
	case bool:
		w.buf = strconv.AppendBool(w.buf, t)
	case string:
		w.str(t)
	case int64:
		w.number(float64(t))
	case float64:
		w.number(t)
	case int:
		w.number(float64(t))
	case int32:
		w.number(float64(t))
	case map[string]any:
		return w.goObject(t, depth)
	case []any:
		return w.goArray(t, depth)
	default:
		g, err := generic(v)
		if err != nil {
			w.err = err
			return true
		}
		return w.goValue(g, depth)
	}
	return true
}

// partialObject writes an unfilled proxy some of whose members were handed
// out to the script: those are written from Lua, the others from Go.
func (w *jsonWriter) partialObject(t *glua.LTable, m map[string]any) bool {
	var err error
	if w.path, err = enter(w.path, t); err != nil {
		w.err = err
		return true
	}
	defer func() { w.path = w.path[:len(w.path)-1] }()
	return w.goObjectFrom(m, len(w.path), t)
}

func (w *jsonWriter) goObject(m map[string]any, depth int) bool {
	return w.goObjectFrom(m, depth, nil)
}

// goObjectFrom writes m; members handed out from proxy (when set) are
// written from their Lua tables.
func (w *jsonWriter) goObjectFrom(m map[string]any, depth int, proxy *glua.LTable) bool {
	start := len(w.keys)
	for k, v := range m {
		if v != nil && (proxy == nil || !w.lazy.removed(proxy, k)) {
			w.keys = append(w.keys, k)
		}
	}
	defer func() { w.keys = w.keys[:start] }()
	if len(w.keys) == start {
		return false
	}
	if w.sorted {
		slices.Sort(w.keys[start:])
	}
	w.buf = append(w.buf, '{')
	first := true
	for i, n := 0, len(w.keys)-start; i < n && w.err == nil; i++ {
		k := w.keys[start+i]
		mark := len(w.buf)
		if !first {
			w.buf = append(w.buf, ',')
		}
		w.str(k)
		w.buf = append(w.buf, ':')
		if w.member(m[k], depth+1, proxy, k) {
			first = false
		} else {
			w.buf = w.buf[:mark]
		}
	}
	w.buf = append(w.buf, '}')
	return true
}

func (w *jsonWriter) member(v any, depth int, proxy *glua.LTable, k string) bool {
	if proxy != nil {
		if child, ok := w.lazy.child(proxy, k); ok {
			return w.value(child)
		}
	}
	return w.goValue(v, depth)
}

func (w *jsonWriter) goArray(s []any, depth int) bool {
	mark := len(w.buf)
	w.buf = append(w.buf, '[')
	first, any := true, false
	for _, v := range s {
		if v == nil || w.err != nil {
			continue
		}
		any = true
		elem := len(w.buf)
		if !first {
			w.buf = append(w.buf, ',')
		}
		if w.goValue(v, depth+1) {
			first = false
		} else {
			w.buf = w.buf[:elem]
		}
	}
	if !any {
		w.buf = w.buf[:mark]
		return false
	}
	w.buf = append(w.buf, ']')
	return true
}
