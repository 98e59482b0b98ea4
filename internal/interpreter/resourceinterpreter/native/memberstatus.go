package native

// memberInts decodes the integer fields of a reflected member status, the
// flat JSON object ReflectStatus writes, without encoding/json: it reads
// the bytes in place and allocates nothing. fields are the JSON names read
// (int64 when wide[i], else int32), known the other fields of the typed
// status the fields come from. It reports false, and the caller decodes
// with encoding/json instead, whenever its answer could differ from
// json.Unmarshal into the typed status: input that is not valid JSON or
// not an object, a read field that is not an integer in range, a key with
// escapes or non-ASCII bytes, a known field present, or a key matching a
// field only case-insensitively. Every other key is skipped.
func memberInts(raw []byte, fields []string, wide []bool, known []string, values []int64) bool {
	s := scanner{buf: raw}
	s.space()
	if !s.consume('{') {
		return false
	}
	s.space()
	if s.consume('}') {
		return s.end()
	}
	for {
		key, ok := s.key()
		if !ok {
			return false
		}
		s.space()
		if !s.consume(':') {
			return false
		}
		s.space()
		if i := indexOf(fields, key); i >= 0 {
			n, ok := s.integer()
			if !ok || (!wide[i] && int64(int32(n)) != n) {
				return false
			}
			values[i] = n
		} else if foldsTo(key, fields) || foldsTo(key, known) {
			return false
		} else if !s.skipValue(0) {
			return false
		}
		s.space()
		if s.consume('}') {
			return s.end()
		}
		if !s.consume(',') {
			return false
		}
		s.space()
	}
}

func indexOf(list []string, key []byte) int {
	for i, e := range list {
		if e == string(key) {
			return i
		}
	}
	return -1
}

// foldsTo reports whether key names one of list for encoding/json, which
// matches field names case-insensitively. Keys are ASCII (see key), so
// ASCII case folding is Unicode case folding here.
func foldsTo(key []byte, list []string) bool {
	for _, e := range list {
		if len(e) != len(key) {
			continue
		}
		i := 0
		for i < len(e) && lower(e[i]) == lower(key[i]) {
			i++
		}
		if i == len(e) {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// scanner validates and skips JSON the way encoding/json accepts it.
type scanner struct {
	buf []byte
	pos int
}

// maxSkipDepth bounds nesting in skipped values; deeper input goes to
// encoding/json.
const maxSkipDepth = 512

func (s *scanner) space() {
	for s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) consume(c byte) bool {
	if s.pos < len(s.buf) && s.buf[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

// end reports whether only white space follows.
func (s *scanner) end() bool {
	s.space()
	return s.pos == len(s.buf)
}

// key reads an object key made of printable ASCII without escapes.
func (s *scanner) key() ([]byte, bool) {
	if !s.consume('"') {
		return nil, false
	}
	start := s.pos
	for s.pos < len(s.buf) {
		c := s.buf[s.pos]
		switch {
		case c == '"':
			key := s.buf[start:s.pos]
			s.pos++
			return key, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
		s.pos++
	}
	return nil, false
}

// integer reads a JSON number that is an integer without fraction or
// exponent and fits an int64.
func (s *scanner) integer() (int64, bool) {
	neg := s.consume('-')
	start := s.pos
	var n uint64
	for s.pos < len(s.buf) && s.buf[s.pos] >= '0' && s.buf[s.pos] <= '9' {
		d := uint64(s.buf[s.pos] - '0')
		if n > (1<<63)/10 {
			return 0, false
		}
		n = n*10 + d
		s.pos++
	}
	digits := s.pos - start
	if digits == 0 || (digits > 1 && s.buf[start] == '0') {
		return 0, false
	}
	if s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > 1<<63-1 {
		return 0, false
	}
	return int64(n), true
}

// skipValue skips one valid JSON value.
func (s *scanner) skipValue(depth int) bool {
	if s.pos >= len(s.buf) || depth > maxSkipDepth {
		return false
	}
	switch c := s.buf[s.pos]; {
	case c == '"':
		return s.skipString()
	case c == '{':
		s.pos++
		s.space()
		if s.consume('}') {
			return true
		}
		for {
			if !s.skipString() {
				return false
			}
			s.space()
			if !s.consume(':') {
				return false
			}
			s.space()
			if !s.skipValue(depth + 1) {
				return false
			}
			s.space()
			if s.consume('}') {
				return true
			}
			if !s.consume(',') {
				return false
			}
			s.space()
		}
	case c == '[':
		s.pos++
		s.space()
		if s.consume(']') {
			return true
		}
		for {
			if !s.skipValue(depth + 1) {
				return false
			}
			s.space()
			if s.consume(']') {
				return true
			}
			if !s.consume(',') {
				return false
			}
			s.space()
		}
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.skipNumber()
	}
	return false
}

func (s *scanner) literal(word string) bool {
	if len(s.buf)-s.pos >= len(word) && string(s.buf[s.pos:s.pos+len(word)]) == word {
		s.pos += len(word)
		return true
	}
	return false
}

// skipString skips a string, checking its escapes and that it holds no
// control character (invalid UTF-8 is accepted, as encoding/json does).
func (s *scanner) skipString() bool {
	if !s.consume('"') {
		return false
	}
	for s.pos < len(s.buf) {
		c := s.buf[s.pos]
		s.pos++
		switch {
		case c == '"':
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.pos >= len(s.buf) {
				return false
			}
			e := s.buf[s.pos]
			s.pos++
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(s.buf)-s.pos < 4 {
					return false
				}
				for _, h := range s.buf[s.pos : s.pos+4] {
					if !isHex(h) {
						return false
					}
				}
				s.pos += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// skipNumber skips -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scanner) skipNumber() bool {
	s.consume('-')
	if s.consume('0') {
		// a leading zero stands alone
	} else if !s.digits() {
		return false
	}
	if s.consume('.') && !s.digits() {
		return false
	}
	if s.consume('e') || s.consume('E') {
		if !s.consume('+') {
			s.consume('-')
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

// digits skips one or more decimal digits.
func (s *scanner) digits() bool {
	start := s.pos
	for s.pos < len(s.buf) && s.buf[s.pos] >= '0' && s.buf[s.pos] <= '9' {
		s.pos++
	}
	return s.pos > start
}
