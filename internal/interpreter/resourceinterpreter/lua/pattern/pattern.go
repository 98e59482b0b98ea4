package pattern

// Limits of a match.
const (
	MaxCaptures   = 32
	maxMatchDepth = 200
	// checkEvery is how many steps run between two calls of Tick.
	checkEvery = 256
)

// Capture lengths with a special meaning.
const (
	// Unfinished is the length of a capture still open when the match
	// ended ("(a" matched by string.find): pushing it is an error.
	Unfinished = -1
	// Position is the length of a position capture "()".
	Position = -2
)

// Capture is one capture of a match: src[Start:Start+Len], or the
// position Start (0-based) when Len is Position.
type Capture struct{ Start, Len int }

// Match is a successful match: src[Start:End], with its captures.
type Match struct {
	Start, End int
	Captures   []Capture
}

// Error is a malformed pattern, or a match stopped by Tick.
type Error struct {
	Message string
	// Cause is the error Tick returned, if that stopped the match.
	Cause error
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Cause }

// Anchored reports whether pat matches only at the start ('^').
func Anchored(pat string) bool { return len(pat) > 0 && pat[0] == '^' }

// Find returns the first match of pat in src at or after init (a 0-based
// offset, which may lie past the end of src where only empty matches are
// possible). An anchored pattern is tried at init only. tick, when set, is
// called every few hundred steps; an error it returns stops the match.
// The error is an *Error: a malformed pattern, one too complex, or a stop.
func Find(src, pat string, init int, tick func() error) (match *Match, err error) {
	m := &matcher{src: src, pat: pat, tick: tick}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			match, err = nil, e
		}
	}()
	s, e, ok := m.find(init)
	if !ok {
		return nil, nil
	}
	match = &Match{Start: s, End: e}
	if m.level > 0 {
		match.Captures = make([]Capture, m.level)
		for i := range m.level {
			match.Captures[i] = Capture{Start: m.capture[i].init, Len: m.capture[i].len}
		}
	}
	return match, nil
}

type capture struct{ init, len int }

type matcher struct {
	src, pat string
	tick     func() error
	level    int
	depth    int
	ticks    int
	capture  [MaxCaptures]capture
}

func (m *matcher) step() {
	m.ticks++
	if m.ticks%checkEvery == 0 && m.tick != nil {
		if err := m.tick(); err != nil {
			panic(&Error{Message: err.Error(), Cause: err})
		}
	}
}

func (m *matcher) fail(msg string) { panic(&Error{Message: msg}) }

func (m *matcher) anchored() bool { return Anchored(m.pat) }

// find returns the first match at or after init: (start, end, true). An
// anchored pattern is tried at init only.
func (m *matcher) find(init int) (int, int, bool) {
	p := 0
	if m.anchored() {
		p = 1
	}
	for s := init; s <= len(m.src); s++ {
		m.level = 0
		if e := m.match(s, p); e >= 0 {
			return s, e, true
		}
		if p == 1 {
			break
		}
	}
	return 0, 0, false
}

// match returns the end of the match of pat[p:] at src[s:], or -1.
func (m *matcher) match(s, p int) int {
	m.depth++
	if m.depth > maxMatchDepth {
		m.fail("pattern too complex")
	}
	defer func() { m.depth-- }()
	for {
		m.step()
		if p == len(m.pat) {
			return s
		}
		switch m.pat[p] {
		case '(':
			if p+1 < len(m.pat) && m.pat[p+1] == ')' {
				return m.startCapture(s, p+2, Position)
			}
			return m.startCapture(s, p+1, Unfinished)
		case ')':
			return m.endCapture(s, p+1)
		case '%':
			if p+1 < len(m.pat) {
				if next, np, done := m.escape(s, p); done {
					return next
				} else if np >= 0 {
					s, p = next, np
					continue
				}
			}
		case '$':
			if p+1 == len(m.pat) {
				if s == len(m.src) {
					return s
				}
				return -1
			}
		}
		next, np, done := m.single(s, p)
		if done {
			return next
		}
		s, p = next, np
	}
}

// escape handles %b and back-references at pat[p] == '%'. It returns
// done with the result, a new (s, p) to continue with, or np < 0 when the
// escape is an ordinary character class.
func (m *matcher) escape(s, p int) (next, np int, done bool) {
	switch c := m.pat[p+1]; {
	case c == 'b':
		e := m.matchBalance(s, p+2)
		if e < 0 {
			return -1, 0, true
		}
		return e, p + 4, false
	case c >= '0' && c <= '9':
		e := m.matchCapture(s, c)
		if e < 0 {
			return -1, 0, true
		}
		return e, p + 2, false
	}
	return 0, -1, false
}

// single matches one pattern item (a class with an optional quantifier).
func (m *matcher) single(s, p int) (next, np int, done bool) {
	ep := m.classEnd(p)
	ok := s < len(m.src) && m.singleMatch(m.src[s], p, ep)
	if ep < len(m.pat) {
		switch m.pat[ep] {
		case '?':
			if ok {
				if e := m.match(s+1, ep+1); e >= 0 {
					return e, 0, true
				}
			}
			return s, ep + 1, false
		case '*':
			return m.maxExpand(s, p, ep), 0, true
		case '+':
			if !ok {
				return -1, 0, true
			}
			return m.maxExpand(s+1, p, ep), 0, true
		case '-':
			return m.minExpand(s, p, ep), 0, true
		}
	}
	if !ok {
		return -1, 0, true
	}
	return s + 1, ep, false
}

func (m *matcher) classEnd(p int) int {
	c := m.pat[p]
	p++
	switch c {
	case '%':
		if p >= len(m.pat) {
			m.fail("malformed pattern (ends with '%')")
		}
		return p + 1
	case '[':
		if p < len(m.pat) && m.pat[p] == '^' {
			p++
		}
		for {
			if p >= len(m.pat) {
				m.fail("malformed pattern (missing ']')")
			}
			c := m.pat[p]
			p++
			if c == '%' && p < len(m.pat) {
				p++
			}
			if p < len(m.pat) && m.pat[p] == ']' {
				return p + 1
			}
		}
	}
	return p
}

func (m *matcher) singleMatch(c byte, p, ep int) bool {
	switch m.pat[p] {
	case '.':
		return true
	case '%':
		return matchClass(c, m.pat[p+1])
	case '[':
		return m.matchBracketClass(c, p, ep-1)
	}
	return m.pat[p] == c
}

// matchBracketClass matches c against the set pat[p:ec+1] ("[...]") as
// gopher-lua (and thus Karmada) reads a set, which differs from C Lua on
// ranges: a '-' after any item joins it with the next item into a range,
// and a range matches only between two plain characters, so "[%a-z]"
// matches nothing of "%a" or "z" (C Lua: a letter, '-' or 'z') and
// "[a--b]" is the range a-b. A '-' first or last is literal, and ']' is
// literal only as the first item, as in C Lua.
func (m *matcher) matchBracketClass(c byte, p, ec int) bool {
	sig := true
	if m.pat[p+1] == '^' {
		sig = false
		p++
	}
	var pending setItem // the last item, evaluated once it cannot join a range
	ranging := false
	for p++; p < ec; {
		if m.pat[p] == '-' && pending.kind != itemNone {
			ranging = true
			p++
			continue
		}
		var next setItem
		if m.pat[p] == '%' {
			next = setItem{kind: itemClass, lo: m.pat[p+1]}
			p += 2
		} else {
			next = setItem{kind: itemChar, lo: m.pat[p]}
			p++
		}
		if ranging {
			ranging = false
			if pending.kind == itemChar && next.kind == itemChar {
				pending = setItem{kind: itemRange, lo: pending.lo, hi: next.lo}
			} else {
				pending = setItem{kind: itemNothing}
			}
			continue
		}
		if pending.matches(c) {
			return sig
		}
		pending = next
	}
	if pending.matches(c) || (ranging && c == '-') {
		return sig
	}
	return !sig
}

// setItem is one item of a bracket set: a character, a %-class, a range
// of two characters, or a range that matches nothing.
type setItem struct {
	kind   setItemKind
	lo, hi byte
}

type setItemKind uint8

const (
	itemNone setItemKind = iota
	itemChar
	itemClass
	itemRange
	itemNothing
)

func (it setItem) matches(c byte) bool {
	switch it.kind {
	case itemChar:
		return c == it.lo
	case itemClass:
		return matchClass(c, it.lo)
	case itemRange:
		return it.lo <= c && c <= it.hi
	}
	return false
}

func (m *matcher) maxExpand(s, p, ep int) int {
	i := 0
	for s+i < len(m.src) && m.singleMatch(m.src[s+i], p, ep) {
		i++
		m.step()
	}
	for ; i >= 0; i-- {
		if e := m.match(s+i, ep+1); e >= 0 {
			return e
		}
	}
	return -1
}

func (m *matcher) minExpand(s, p, ep int) int {
	for {
		if e := m.match(s, ep+1); e >= 0 {
			return e
		}
		if s < len(m.src) && m.singleMatch(m.src[s], p, ep) {
			s++
			continue
		}
		return -1
	}
}

func (m *matcher) startCapture(s, p, what int) int {
	if m.level >= MaxCaptures {
		m.fail("too many captures")
	}
	m.capture[m.level] = capture{init: s, len: what}
	m.level++
	e := m.match(s, p)
	if e < 0 {
		m.level--
	}
	return e
}

func (m *matcher) endCapture(s, p int) int {
	l := m.captureToClose()
	m.capture[l].len = s - m.capture[l].init
	e := m.match(s, p)
	if e < 0 {
		m.capture[l].len = Unfinished
	}
	return e
}

func (m *matcher) captureToClose() int {
	for l := m.level - 1; l >= 0; l-- {
		if m.capture[l].len == Unfinished {
			return l
		}
	}
	m.fail("invalid pattern capture")
	return 0
}

func (m *matcher) matchBalance(s, p int) int {
	if p+1 >= len(m.pat) {
		m.fail("unbalanced pattern")
	}
	if s >= len(m.src) || m.src[s] != m.pat[p] {
		return -1
	}
	open, close := m.pat[p], m.pat[p+1]
	depth := 1
	for i := s + 1; i < len(m.src); i++ {
		m.step()
		switch m.src[i] {
		case close:
			depth--
			if depth == 0 {
				return i + 1
			}
		case open:
			depth++
		}
	}
	return -1
}

func (m *matcher) matchCapture(s int, c byte) int {
	l := int(c - '1')
	if l < 0 || l >= m.level || m.capture[l].len == Unfinished {
		m.fail("invalid capture index")
	}
	cp := m.capture[l]
	if cp.len == Position {
		// A position has no text; gopher-lua (Karmada) matches it as
		// the empty string.
		return s
	}
	if len(m.src)-s >= cp.len && m.src[cp.init:cp.init+cp.len] == m.src[s:s+cp.len] {
		return s + cp.len
	}
	return -1
}

// matchClass matches c against a %-class letter, C-locale semantics.
func matchClass(c, cl byte) bool {
	var res bool
	switch cl | 0x20 {
	case 'a':
		res = isAlpha(c)
	case 'c':
		res = c < 32 || c == 127
	case 'd':
		res = c >= '0' && c <= '9'
	case 'l':
		res = c >= 'a' && c <= 'z'
	case 'p':
		res = isPunct(c)
	case 's':
		res = c == ' ' || (c >= '\t' && c <= '\r')
	case 'u':
		res = c >= 'A' && c <= 'Z'
	case 'w':
		res = isAlpha(c) || (c >= '0' && c <= '9')
	case 'x':
		res = (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'f')
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if cl >= 'A' && cl <= 'Z' {
		return !res
	}
	return res
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isPunct(c byte) bool {
	return c > 32 && c < 127 && !isAlpha(c) && !(c >= '0' && c <= '9')
}
