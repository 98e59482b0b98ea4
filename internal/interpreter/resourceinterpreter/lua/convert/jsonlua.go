package convert

import (
	"bytes"
	"errors"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	glua "github.com/yuin/gopher-lua"
)

// errSlowPath makes jsonToLuaFast give up on input it does not handle
// (invalid UTF-8, malformed JSON); encoding/json then decodes it, with the
// same result where both apply.
var errSlowPath = errors.New("json: not handled by the fast decoder")

// jsonToLuaFast decodes JSON straight into Lua tables, without the Go maps
// and boxed numbers of encoding/json: null members and elements are left
// out, of repeated members the last wins, members are inserted in key
// order, numbers are float64 as encoding/json parses them, escapes are
// decoded as encoding/json decodes them.
//
// The input is read in place, not copied: every string that ends up in a
// table is copied (or interned) by the table builder, so no Lua value
// refers to data.
func (st *State) jsonToLuaFast(data []byte) (glua.LValue, error) {
	p := jsonParser{L: st.L, s: data, members: st.members[:0], tables: st.tables}
	defer func() { st.members = p.members[:0] }()
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
	// s is the input, the caller's bytes.
	s []byte
	i int
	// members is a stack of (key, value) pairs of the objects being read.
	members []member
	depth   int
	tables  *tableBuilder
	// buf holds a string while its escapes are decoded.
	buf []byte
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
		if err != nil {
			return nil, err
		}
		return p.tables.strBytes(s), nil
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
	if !bytes.HasPrefix(p.s[p.i:], []byte(word)) {
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
		kb, err := p.str()
		if err != nil {
			return nil, err
		}
		key := p.tables.key(kb)
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
	return p.tables.object(p.members[start:]), nil
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

// str reads a string. The result is a view of the input or of p.buf,
// valid until the next call.
func (p *jsonParser) str() ([]byte, error) {
	p.i++ // "
	start := p.i
	ascii := true
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == '"':
			s := p.s[start:p.i]
			p.i++
			if !ascii && !utf8.Valid(s) {
				return nil, errSlowPath
			}
			return s, nil
		case c == '\\':
			return p.escapedStr(start)
		case c < 0x20:
			return nil, errSlowPath
		case c >= utf8.RuneSelf:
			ascii = false
		}
		p.i++
	}
	return nil, errSlowPath
}

// escapedStr reads the rest of a string that starts at start and has an
// escape at p.i, decoding escapes as encoding/json does: a \u escape of a
// surrogate that does not pair with the next one is U+FFFD.
func (p *jsonParser) escapedStr(start int) ([]byte, error) {
	b := append(p.buf[:0], p.s[start:p.i]...)
	defer func() { p.buf = b[:0] }()
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			if !utf8.Valid(b) {
				return nil, errSlowPath
			}
			return b, nil
		case c < 0x20:
			return nil, errSlowPath
		case c != '\\':
			b = append(b, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.s) {
			return nil, errSlowPath
		}
		switch e := p.s[p.i+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := hex4(p.s[p.i+2:])
			if r < 0 {
				return nil, errSlowPath
			}
			p.i += 6
			if utf16.IsSurrogate(r) {
				if p.i+1 < len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
					if r2 := hex4(p.s[p.i+2:]); r2 >= 0 {
						if d := utf16.DecodeRune(r, r2); d != unicode.ReplacementChar {
							p.i += 6
							b = utf8.AppendRune(b, d)
							continue
						}
					}
				}
				r = unicode.ReplacementChar
			}
			b = utf8.AppendRune(b, r)
			continue
		default:
			return nil, errSlowPath
		}
		p.i += 2
	}
	return nil, errSlowPath
}

// hex4 decodes the 4 hex digits s starts with, -1 if it does not.
func hex4(s []byte) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// number reads a JSON number (strict grammar) as float64.
func (p *jsonParser) number() (glua.LValue, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := p.i
	frac := false
	switch {
	case p.i < len(p.s) && p.s[p.i] == '0':
		p.i++
	case p.i < len(p.s) && p.s[p.i] >= '1' && p.s[p.i] <= '9':
		p.digits()
	default:
		return nil, errSlowPath
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		frac = true
		p.i++
		if !p.digits() {
			return nil, errSlowPath
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		frac = true
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return nil, errSlowPath
		}
	}
	if !frac && p.i-digits <= 15 {
		// At most 15 digits: exact in a float64, as ParseFloat gives it.
		var n int64
		for _, c := range p.s[digits:p.i] {
			n = n*10 + int64(c-'0')
		}
		f := float64(n)
		if digits > start {
			f = -f // -0 stays negative zero, as with ParseFloat
		}
		return luaNumber(f), nil
	}
	f, err := strconv.ParseFloat(string(p.s[start:p.i]), 64)
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
