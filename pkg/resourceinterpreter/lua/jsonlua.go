package lua

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	glua "github.com/yuin/gopher-lua"
)

// errSlowPath makes jsonToLuaFast give up on input it does not handle
// (escaped or invalid UTF-8 strings, malformed JSON); encoding/json then
// decodes it, with the same result where both apply.
var errSlowPath = errors.New("json: not handled by the fast decoder")

// jsonToLuaFast decodes JSON straight into Lua tables, without the Go maps
// and boxed numbers of encoding/json: null members and elements are left
// out, members are inserted in key order, numbers are float64 as
// encoding/json parses them.
func jsonToLuaFast(L *glua.LState, data []byte) (glua.LValue, error) {
	p := jsonParser{L: L, s: string(data)}
	if b := scratchOf(L); b != nil {
		p.members = b.members[:0]
		defer func() { b.members = p.members[:0] }()
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, errSlowPath
	}
	return v, nil
}

type jsonParser struct {
	L *glua.LState
	s string
	i int
	// members is a stack of (key, value) pairs of the objects being read.
	members []member
	depth   int
}

type member struct {
	key string
	val glua.LValue
}

func (p *jsonParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value() (glua.LValue, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, errSlowPath
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.str()
		return glua.LString(s), err
	case c == 't':
		return glua.LTrue, p.literal("true")
	case c == 'f':
		return glua.LFalse, p.literal("false")
	case c == 'n':
		return glua.LNil, p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, errSlowPath
}

func (p *jsonParser) literal(word string) error {
	if !strings.HasPrefix(p.s[p.i:], word) {
		return errSlowPath
	}
	p.i += len(word)
	return nil
}

func (p *jsonParser) enter() error {
	p.depth++
	if p.depth > maxEncodeDepth {
		return errSlowPath
	}
	return nil
}

func (p *jsonParser) object() (glua.LValue, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.i++ // {
	start := len(p.members)
	defer func() {
		clear(p.members[start:])
		p.members = p.members[:start]
	}()
	for first := true; ; first = false {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' && first {
			p.i++
			break
		}
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, errSlowPath
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, errSlowPath
		}
		p.i++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		p.members = append(p.members, member{key, v})
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			break
		}
		return nil, errSlowPath
	}
	ms := p.members[start:]
	// Later duplicates win, as in encoding/json; the stable sort keeps them last.
	slices.SortStableFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
	tbl := p.L.CreateTable(0, len(ms))
	for i, m := range ms {
		if i+1 < len(ms) && ms[i+1].key == m.key {
			continue // a later duplicate wins
		}
		if m.val != glua.LNil {
			tbl.RawSetString(m.key, m.val)
		}
	}
	return tbl, nil
}

func (p *jsonParser) array() (glua.LValue, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.i++ // [
	tbl := p.L.CreateTable(4, 0)
	for first := true; ; first = false {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ']' && first {
			p.i++
			return tbl, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if v != glua.LNil {
			tbl.Append(v)
		}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return tbl, nil
		}
		return nil, errSlowPath
	}
}

// str reads a string without escapes, in valid UTF-8.
func (p *jsonParser) str() (string, error) {
	p.i++ // "
	start := p.i
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == '"':
			s := p.s[start:p.i]
			p.i++
			if !utf8.ValidString(s) {
				return "", errSlowPath
			}
			return s, nil
		case c == '\\' || c < 0x20:
			return "", errSlowPath
		}
		p.i++
	}
	return "", errSlowPath
}

// number reads a JSON number (strict grammar) as float64.
func (p *jsonParser) number() (glua.LValue, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.s) && p.s[p.i] == '0':
		p.i++
	case p.i < len(p.s) && p.s[p.i] >= '1' && p.s[p.i] <= '9':
		p.digits()
	default:
		return nil, errSlowPath
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if !p.digits() {
			return nil, errSlowPath
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return nil, errSlowPath
		}
	}
	f, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil {
		return nil, errSlowPath
	}
	return luaNumber(f), nil
}

func (p *jsonParser) digits() bool {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}
