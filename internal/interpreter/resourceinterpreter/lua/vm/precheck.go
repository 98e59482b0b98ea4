package vm

import (
	"fmt"
	"strings"
)

// Limits checked on a script's text before it is parsed: gopher-lua's
// parser and compiler recurse once per nesting level (a script of a
// million '#' overflowed the goroutine stack, which kills the process),
// take memory in proportion to nesting, and look constants up linearly
// (80,000 distinct constants took 20 s to compile). Within these limits
// the worst script compiles in well under a second (docs/benchmarks.md).
const (
	// MaxScriptBytes bounds the length of one script. Karmada's own
	// scripts are a few KiB.
	MaxScriptBytes = 64 << 10
	// MaxNestingDepth bounds the nesting of brackets, blocks (function,
	// if, do, repeat) and chained unary operators (#, -, not).
	MaxNestingDepth = 200
	// MaxConstants bounds the number of distinct literals (strings and
	// numbers) of a script.
	MaxConstants = 2048
)

// precheck scans source as Lua tokens, without parsing it, and returns a
// *CompileError naming the first limit exceeded. Malformed text (an
// unfinished string...) is left to the parser.
func precheck(name, source string) error {
	if len(source) > MaxScriptBytes {
		return &CompileError{Name: name, Line: 1, Message: fmt.Sprintf(
			"script of %d bytes exceeds the limit of %d bytes", len(source), MaxScriptBytes)}
	}
	sc := scanner{src: source, line: 1, consts: map[string]struct{}{}}
	return sc.run(name)
}

type scanner struct {
	src    string
	i      int
	line   int
	depth  int
	unary  int
	consts map[string]struct{}
}

func (sc *scanner) fail(name string, format string, args ...any) error {
	return &CompileError{Name: name, Line: sc.line, Message: fmt.Sprintf(format, args...)}
}

func (sc *scanner) run(name string) error {
	for sc.i < len(sc.src) {
		c := sc.src[sc.i]
		unary := false
		switch {
		case c == '\n':
			sc.line++
			sc.i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			sc.i++
			continue
		case c == '-' && strings.HasPrefix(sc.src[sc.i:], "--"):
			sc.i += 2
			if level, ok := sc.longBracket(); ok {
				sc.skipLong(level)
			} else {
				for sc.i < len(sc.src) && sc.src[sc.i] != '\n' {
					sc.i++
				}
			}
			continue
		case c == '[':
			if level, ok := sc.longBracket(); ok {
				start := sc.i
				sc.skipLong(level)
				if err := sc.constant(name, sc.src[start:sc.i]); err != nil {
					return err
				}
				break
			}
			sc.i++
			if err := sc.open(name); err != nil {
				return err
			}
		case c == '(' || c == '{':
			sc.i++
			if err := sc.open(name); err != nil {
				return err
			}
		case c == ')' || c == '}' || c == ']':
			sc.i++
			sc.depth--
		case c == '"' || c == '\'':
			start := sc.i
			sc.skipString(c)
			if err := sc.constant(name, sc.src[start:sc.i]); err != nil {
				return err
			}
		case c >= '0' && c <= '9' || (c == '.' && sc.i+1 < len(sc.src) && sc.src[sc.i+1] >= '0' && sc.src[sc.i+1] <= '9'):
			start := sc.i
			for sc.i < len(sc.src) && (isWord(sc.src[sc.i]) || sc.src[sc.i] == '.' ||
				((sc.src[sc.i] == '-' || sc.src[sc.i] == '+') && (sc.src[sc.i-1]|0x20) == 'e')) {
				sc.i++
			}
			if err := sc.constant(name, sc.src[start:sc.i]); err != nil {
				return err
			}
		case isWord(c):
			start := sc.i
			for sc.i < len(sc.src) && isWord(sc.src[sc.i]) {
				sc.i++
			}
			switch sc.src[start:sc.i] {
			case "function", "if", "do", "repeat":
				if err := sc.open(name); err != nil {
					return err
				}
			case "end", "until":
				sc.depth--
			case "not":
				unary = true
			}
		case c == '#' || c == '-':
			sc.i++
			unary = true
		default:
			sc.i++
		}
		if unary {
			sc.unary++
			if sc.depth+sc.unary > MaxNestingDepth {
				return sc.fail(name, "expression nests deeper than the limit of %d levels (chained unary operators)", MaxNestingDepth)
			}
		} else {
			sc.unary = 0
		}
	}
	return nil
}

func (sc *scanner) open(name string) error {
	sc.depth++
	if sc.depth+sc.unary > MaxNestingDepth {
		return sc.fail(name, "script nests deeper than the limit of %d levels (brackets and blocks)", MaxNestingDepth)
	}
	return nil
}

func (sc *scanner) constant(name, lit string) error {
	if _, ok := sc.consts[lit]; ok {
		return nil
	}
	sc.consts[lit] = struct{}{}
	if len(sc.consts) > MaxConstants {
		return sc.fail(name, "script has more than the limit of %d distinct constants", MaxConstants)
	}
	return nil
}

// longBracket reports whether a long bracket ([[, [=[, ...) starts at
// sc.i, and its level; it does not move.
func (sc *scanner) longBracket() (int, bool) {
	j := sc.i
	if j >= len(sc.src) || sc.src[j] != '[' {
		return 0, false
	}
	j++
	level := 0
	for j < len(sc.src) && sc.src[j] == '=' {
		level++
		j++
	}
	return level, j < len(sc.src) && sc.src[j] == '['
}

// skipLong moves past a long bracket of level starting at sc.i.
func (sc *scanner) skipLong(level int) {
	sc.i += level + 2
	closing := "]" + strings.Repeat("=", level) + "]"
	end := strings.Index(sc.src[sc.i:], closing)
	if end < 0 {
		end = len(sc.src) - sc.i
	} else {
		end += len(closing)
	}
	sc.line += strings.Count(sc.src[sc.i:sc.i+end], "\n")
	sc.i += end
}

// skipString moves past a quoted string starting at sc.i.
func (sc *scanner) skipString(quote byte) {
	sc.i++
	for sc.i < len(sc.src) {
		switch sc.src[sc.i] {
		case '\\':
			if sc.i+1 < len(sc.src) && sc.src[sc.i+1] == '\n' {
				sc.line++
			}
			// A backslash ending the script escapes nothing: stop at the end.
			sc.i = min(sc.i+2, len(sc.src))
			continue
		case quote:
			sc.i++
			return
		case '\n':
			return
		}
		sc.i++
	}
}

func isWord(c byte) bool {
	return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') || (c >= '0' && c <= '9')
}
