package vm

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"
	glua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// Script is the Lua script of one customization. Name, the customization's
// name, is the chunk name, so error positions read "<name>:<line>:".
type Script struct {
	Name   string
	Source string
	key    [sha256.Size]byte
}

// NewScript returns a script with its cache key computed once.
func NewScript(name, source string) Script {
	s := Script{Name: name, Source: source}
	s.key = scriptKey(name, source)
	return s
}

func scriptKey(name, source string) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write([]byte(source))
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

func (s Script) cacheKey() [sha256.Size]byte {
	if s.key == ([sha256.Size]byte{}) {
		return scriptKey(s.Name, s.Source)
	}
	return s.key
}

// CompileError reports a script that does not parse or compile.
type CompileError struct {
	// Name is the chunk (customization) name.
	Name string
	// Line is the 1-based line of the error.
	Line    int
	Message string
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Message)
}

// Compile parses and compiles source without running it; the error, a
// *CompileError, names the line.
func Compile(name, source string) error {
	_, err := compile(name, source)
	return err
}

// program is a compiled script.
type program struct {
	proto *glua.FunctionProto
	// globals are the global names the script assigns, and _G when it
	// reads it (see shadow.go).
	globals []string
}

func compile(name, source string) (prog *program, err error) {
	if err := precheck(name, source); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			prog, err = nil, &CompileError{Name: name, Line: 1, Message: fmt.Sprint(r)}
		}
	}()
	chunk, err := parse.Parse(strings.NewReader(source), name)
	if err != nil {
		return nil, parseError(name, source, err)
	}
	if chunk == nil && strings.TrimSpace(source) != "" {
		return nil, &CompileError{Name: name, Line: 1, Message: "script does not parse"}
	}
	rewriteConcat(chunk)
	proto, err := glua.Compile(chunk, name)
	if err != nil {
		var ce *glua.CompileError
		if errors.As(err, &ce) {
			return nil, &CompileError{Name: name, Line: ce.Line, Message: ce.Message}
		}
		return nil, &CompileError{Name: name, Line: 1, Message: err.Error()}
	}
	// The chunk is a vararg function that, for Lua 5.0 compatibility, gets
	// an "arg" table of its arguments on every run; but the main chunk has
	// no local of that name (gopher-lua only names it in nested functions),
	// so the table is unreachable: do not build it.
	proto.IsVarArg &^= glua.VarArgNeedsArg
	return &program{proto: proto, globals: assignedGlobals(proto)}, nil
}

func parseError(name, source string, err error) error {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return &CompileError{Name: name, Line: 1, Message: strings.TrimSpace(err.Error())}
	}
	if pe.Pos.Line == parse.EOF {
		return &CompileError{Name: name, Line: strings.Count(source, "\n") + 1, Message: pe.Message + " at EOF"}
	}
	msg := pe.Message
	if pe.Token != "" {
		msg = fmt.Sprintf("%s near '%s'", pe.Message, pe.Token)
	}
	return &CompileError{Name: name, Line: pe.Pos.Line, Message: msg}
}

// compiled is a cache entry: a program or the error compiling it gave.
type compiled struct {
	prog *program
	err  error
}

// protoCache maps script keys to compiled programs. Programs are
// immutable once compiled, so states share them.
type protoCache struct {
	lru *lru.Cache[[sha256.Size]byte, compiled]
}

// newProtoCache returns a cache of size entries; size must be positive
// (Options.withDefaults ensures it), the only case lru.New rejects.
func newProtoCache(size int) *protoCache {
	c, err := lru.New[[sha256.Size]byte, compiled](max(size, 1))
	if err != nil {
		panic(fmt.Sprintf("lru.New(%d): %v", size, err))
	}
	return &protoCache{lru: c}
}

func (c *protoCache) get(s Script) (*program, error) {
	key := s.cacheKey()
	if e, ok := c.lru.Get(key); ok {
		return e.prog, e.err
	}
	prog, err := compile(s.Name, s.Source)
	c.lru.Add(key, compiled{prog: prog, err: err})
	return prog, err
}
