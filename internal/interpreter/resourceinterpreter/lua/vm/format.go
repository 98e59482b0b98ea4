package vm

import (
	"fmt"
	"strings"
	"unicode/utf8"

	glua "github.com/yuin/gopher-lua"
)

// string.format hands its format to Go's fmt.Sprintf, as gopher-lua (and so
// Karmada) does. Unchecked, one call could ask for widths of up to a
// million bytes per verb, and reuse a big argument in every verb through
// explicit indexes ("%[1]s"): gigabytes built before the allocation budget
// could look. So the format is scanned first, the way fmt reads it: widths
// and precisions are bounded as Lua bounds them (two digits), and the
// result's size is bounded and charged to the budget before it is built.
const (
	// maxFormatWidth bounds a verb's width and precision.
	maxFormatWidth = 99
	// maxFormatIndex bounds how far the "]" of an explicit argument index
	// may be from its "[": fmt looks for it up to the end of the format,
	// which made "%[%[%[..." quadratic.
	maxFormatIndex = 8
	// verbOverhead bounds what fmt adds to a verb's value: its error
	// markers (%!v(MISSING), %!(BADWIDTH), a type name).
	verbOverhead = 64
	// scalarBytes bounds a number, boolean or nil formatted with a width
	// and precision of at most maxFormatWidth (the longest, %.99f of
	// 1e308, is 410 bytes), and the "table: 0x..." text of other values.
	scalarBytes = 512
)

// formatError is a string.format format refused before formatting.
type formatError struct {
	// Arg is the argument at fault: 1 for the format itself.
	Arg int
	// Spec is the offending verb, as written in the format.
	Spec   string
	Reason string
}

func (e *formatError) Error() string {
	return fmt.Sprintf("bad argument #%d to string.format: %s", e.Arg, e.Reason)
}

// strFormat is string.format: gopher-lua's, with the format checked and
// the result charged to the call's budget first.
func strFormat(L *glua.LState) int {
	format := L.CheckString(1)
	args := formatArgs(L, format)
	size, err := formatSize(format, args)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	reserve(L, "string.format", size)
	L.Push(glua.LString(fmt.Sprintf(format, args...)))
	return 1
}

// formatArgs returns the arguments gopher-lua passes to fmt: one per "%"
// not part of a "%%", at most.
func formatArgs(L *glua.LState, format string) []any {
	n := strings.Count(format, "%") - strings.Count(format, "%%")
	n = min(n, L.GetTop()-1)
	args := make([]any, 0, max(n, 0))
	for i := 0; i < n; i++ {
		args = append(args, L.Get(i+2))
	}
	return args
}

// formatSize returns a bound of the length of fmt.Sprintf(format, args...)
// for args that are Lua values, reading the format as fmt reads it. It
// refuses a width or precision over maxFormatWidth, an argument index
// whose "]" is missing or far away, and a verb that would make fmt print a
// table's or function's Go internals (anything but %s, %q, %v, %x, %X, %T
// and %p) instead of the text tostring gives.
func formatSize(format string, args []any) (int64, error) {
	s := formatScan{format: format, args: args, size: int64(len(format))}
	if err := s.scan(); err != nil {
		return 0, err
	}
	return s.size, nil
}

type formatScan struct {
	format string
	args   []any
	size   int64
	// state of the verb being read, as fmt keeps it
	start      int
	argNum     int
	afterIndex bool
	goodArgNum bool
	reordered  bool
}

func (s *formatScan) scan() error {
	f, end := s.format, len(s.format)
verbs:
	for i := 0; i < end; {
		s.goodArgNum = true
		j := strings.IndexByte(f[i:], '%')
		if j < 0 {
			break
		}
		s.start = i + j
		i = s.start + 1
		sharp := false
	flags:
		for ; i < end; i++ {
			switch c := f[i]; c {
			case '#':
				sharp = true
			case '0', '+', '-', ' ':
			default:
				// fmt's fast path: a lower-case verb right after the flags.
				if 'a' <= c && c <= 'z' && s.argNum < len(s.args) {
					if err := s.print(rune(c), sharp, 0); err != nil {
						return err
					}
					i++
					continue verbs
				}
				break flags
			}
		}
		var err error
		if i, err = s.index(i); err != nil {
			return err
		}
		width := 0
		if i < end && f[i] == '*' {
			// fmt takes a width only from a Go int, never a Lua value:
			// the argument is consumed and %!(BADWIDTH) printed.
			i++
			s.takeArg()
			s.afterIndex = false
			s.size += verbOverhead
		} else {
			var present bool
			if width, present, i, err = s.number(i, "width"); err != nil {
				return err
			}
			if s.afterIndex && present {
				s.goodArgNum = false
			}
		}
		if i+1 < end && f[i] == '.' {
			i++
			if s.afterIndex {
				s.goodArgNum = false
			}
			if i, err = s.index(i); err != nil {
				return err
			}
			if i < end && f[i] == '*' {
				i++
				s.takeArg()
				s.afterIndex = false
				s.size += verbOverhead
			} else if _, _, i, err = s.number(i, "precision"); err != nil {
				return err
			}
		}
		if !s.afterIndex {
			if i, err = s.index(i); err != nil {
				return err
			}
		}
		if i >= end {
			// %!(NOVERB)
			s.size += verbOverhead
			break
		}
		verb, n := utf8.DecodeRuneInString(f[i:])
		i += n
		switch {
		case verb == '%':
		case !s.goodArgNum || s.argNum >= len(s.args):
			s.size += verbOverhead
		default:
			if err := s.print(verb, sharp, width); err != nil {
				return err
			}
		}
	}
	if !s.reordered && s.argNum < len(s.args) {
		// fmt lists the unused arguments: %!(EXTRA type=value, ...).
		for _, a := range s.args[s.argNum:] {
			s.size += verbOverhead + valueBytes(a, 'v', false)
		}
	}
	return nil
}

// print accounts for the argument at argNum printed with verb.
func (s *formatScan) print(verb rune, sharp bool, width int) error {
	a := s.args[s.argNum]
	if !scalar(a) && !tostringVerb(verb, sharp) {
		return &formatError{Arg: s.argNum + 2, Spec: s.spec(),
			Reason: fmt.Sprintf("%q cannot format a %s", s.spec(), typeName(a))}
	}
	s.size += verbOverhead + int64(width) + valueBytes(a, verb, sharp && (verb == 'v' || verb == 'w'))
	s.argNum++
	return nil
}

// takeArg consumes an argument as fmt does for a '*' width or precision.
func (s *formatScan) takeArg() {
	if s.argNum < len(s.args) {
		s.argNum++
	}
}

// index reads an explicit argument index "[n]" at i, as fmt does.
func (s *formatScan) index(i int) (int, error) {
	f := s.format
	if i >= len(f) || f[i] != '[' {
		s.afterIndex = false
		return i, nil
	}
	s.reordered = true
	if len(f)-i < 3 {
		s.goodArgNum, s.afterIndex = false, false
		return i + 1, nil
	}
	closing := strings.IndexByte(f[i+1:min(len(f), i+1+maxFormatIndex)], ']')
	if closing < 0 {
		if i+1+maxFormatIndex < len(f) {
			return 0, &formatError{Arg: 1, Spec: s.spec(),
				Reason: fmt.Sprintf("argument index in %q is not closed within %d bytes", s.spec(), maxFormatIndex)}
		}
		s.goodArgNum, s.afterIndex = false, false
		return i + 1, nil
	}
	closing += i + 1
	n, ok := 0, closing > i+1
	for k := i + 1; k < closing && ok; k++ {
		c := f[k]
		ok = '0' <= c && c <= '9'
		n = n*10 + int(c-'0')
	}
	if ok && n >= 1 && n <= len(s.args) {
		s.argNum, s.afterIndex = n-1, true
		return closing + 1, nil
	}
	s.goodArgNum, s.afterIndex = false, ok
	return closing + 1, nil
}

// number reads a width or precision at i, refusing one over
// maxFormatWidth. fmt gives up on numbers over a million; those are
// refused here first.
func (s *formatScan) number(i int, what string) (n int, present bool, next int, err error) {
	f := s.format
	for next = i; next < len(f) && '0' <= f[next] && f[next] <= '9'; next++ {
		n = min(n*10+int(f[next]-'0'), 1<<30)
	}
	if n > maxFormatWidth {
		return 0, false, 0, &formatError{Arg: 1, Spec: s.spec(),
			Reason: fmt.Sprintf("%s %s in %q exceeds the limit of %d", what, f[i:next], s.spec(), maxFormatWidth)}
	}
	return n, next > i, next, nil
}

// spec returns the verb being read as written, for errors: flags, width,
// precision and indexes, then the verb; cut short when very long.
func (s *formatScan) spec() string {
	f := s.format
	end := s.start + 1
	for end < len(f) && strings.IndexByte("#0+- 123456789.*[]", f[end]) >= 0 {
		end++
	}
	if end < len(f) {
		_, n := utf8.DecodeRuneInString(f[end:])
		end += n
	}
	if end-s.start > 40 {
		return f[s.start:s.start+40] + "..."
	}
	return f[s.start:end]
}

// scalar reports whether fmt prints a as a bounded text whatever the verb.
func scalar(a any) bool {
	switch a.(type) {
	case glua.LString, glua.LNumber, glua.LBool, *glua.LNilType:
		return true
	}
	return false
}

// tostringVerb reports whether fmt prints a table, function or userdata
// with verb through its String method ("table: 0x..."); with any other
// verb fmt walks the Go value and prints its internals.
func tostringVerb(verb rune, sharp bool) bool {
	switch verb {
	case 's', 'q', 'x', 'X', 'T', 'p':
		return true
	case 'v':
		return !sharp
	}
	return false
}

// valueBytes bounds the text of a printed with verb, width aside; quoted
// is %#v or %#w, which quote a string.
func valueBytes(a any, verb rune, quoted bool) int64 {
	str, ok := a.(glua.LString)
	if !ok {
		return scalarBytes
	}
	n := int64(len(str))
	switch {
	case verb == 'x' || verb == 'X':
		// "% #x" writes each byte as "0xff ".
		return 5*n + 2
	case verb == 'q' || quoted:
		// A byte that is not valid UTF-8 is quoted as \xff.
		return 4*n + 2
	}
	return n
}

func typeName(a any) string {
	if v, ok := a.(glua.LValue); ok {
		return v.Type().String()
	}
	return fmt.Sprintf("%T", a)
}
