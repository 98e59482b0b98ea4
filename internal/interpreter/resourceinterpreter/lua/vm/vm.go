package vm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	glua "github.com/yuin/gopher-lua"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// Extension is what a VM's user keeps per Lua state (its conversion
// scratch space, say): made by the open function given to New once per
// state, handed to every call on that state.
type Extension interface {
	// EndCall runs after every call that succeeded, before the state goes
	// back to the pool; a state whose call failed is closed instead.
	EndCall()
}

// VM runs customization scripts on pooled, sandboxed Lua states, each with
// an extension S. It is safe for concurrent use.
type VM[S Extension] struct {
	opts  Options
	open  func(L *glua.LState) (S, error)
	cache *protoCache
	pool  *pool[*state[S]]
	guard *memoryGuard
	// printed rate-limits the log lines of script print().
	printed printLimiter
}

// New returns a VM with opts (zero values take the defaults). open
// prepares every new state once, after the sandbox's libraries are opened
// and before they are frozen: it registers modules (RegisterModule) and
// returns the state's extension.
func New[S Extension](opts Options, open func(L *glua.LState) (S, error)) *VM[S] {
	opts = opts.withDefaults()
	vm := &VM[S]{opts: opts, open: open, guard: newMemoryGuard(opts.MaxAllocBytes)}
	if !opts.DisableCache {
		vm.cache = newProtoCache(opts.CacheSize)
	}
	vm.pool = newPool(opts.PoolSize, vm.newState)
	return vm
}

// Close releases the idle states. Calls still running keep theirs.
func (vm *VM[S]) Close() { vm.pool.drain() }

// Compile compiles s through the VM's cache, so that a later call does not
// compile it again; the error is a *CompileError.
func (vm *VM[S]) Compile(s Script) error {
	if vm.cache == nil {
		return Compile(s.Name, s.Source)
	}
	_, err := vm.cache.get(s)
	return err
}

// state is a pooled Lua state with its budget and extension.
type state[S Extension] struct {
	L      *glua.LState
	budget *budget
	guard  *memoryGuard
	iso    *isolation
	ext    S
}

func (vm *VM[S]) newState() (*state[S], error) {
	L, err := newSandbox(vm.opts)
	if err != nil {
		return nil, err
	}
	ext, err := vm.open(L)
	if err != nil {
		L.Close()
		return nil, fmt.Errorf("prepare Lua state: %w", err)
	}
	b := newBudget(vm.opts.Timeout, vm.opts.MaxSteps)
	b.L, b.maxBytes = L, vm.opts.MaxAllocBytes
	L.SetGlobal("print", L.NewFunction(vm.print))
	iso := isolate(L)
	L.SetContext(b)
	vm.guard.register(b)
	return &state[S]{L: L, budget: b, guard: vm.guard, iso: iso, ext: ext}, nil
}

func (s *state[S]) close() {
	s.guard.unregister(s.budget)
	s.L.Close()
}

// Call describes one invocation of an entry function.
type Call[S Extension] struct {
	Script Script
	Op     configv1alpha1.InterpreterOperation
	Entry  string
	NRet   int
	// Args pushes the arguments and returns how many.
	Args func(L *glua.LState, ext S) (int, error)
	// Results converts the returned values while the state is held.
	Results func(L *glua.LState, ext S, rets []glua.LValue) error
}

// Run executes c on a pooled state. Any failure closes the state; the
// error is a *ScriptError.
func (vm *VM[S]) Run(ctx context.Context, c *Call[S]) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := vm.pool.get(ctx)
	if err != nil {
		return scriptError(c.Script.Name, c.Op, err)
	}
	st.budget.begin(ctx)
	st.budget.script, st.budget.op = c.Script.Name, c.Op
	vm.guard.enter()
	defer func() {
		if r := recover(); r != nil {
			err = scriptError(c.Script.Name, c.Op, fmt.Errorf("internal error: %v", r))
		}
		vm.guard.leave()
		st.budget.end()
		if err != nil {
			vm.pool.discard(st)
			return
		}
		st.ext.EndCall()
		st.L.SetTop(0)
		vm.pool.put(st)
	}()
	return vm.execute(st, c)
}

func (vm *VM[S]) execute(st *state[S], c *Call[S]) error {
	L := st.L
	L.SetTop(0)
	prog, err := vm.load(c.Script)
	if err != nil {
		return scriptError(c.Script.Name, c.Op, err)
	}
	fn := L.NewFunctionFromProto(prog.proto)
	// The chunk runs in an environment of its own (see isolation.go).
	env := st.iso.environment(L, prog.globals)
	fn.Env = env
	L.Push(fn)
	if err := L.PCall(0, 0, nil); err != nil {
		return luaError(st.budget, c.Script.Name, c.Op, err)
	}
	entry := env.RawGetString(c.Entry)
	switch entry.Type() {
	case glua.LTNil:
		return scriptError(c.Script.Name, c.Op, fmt.Errorf("not found function %s", c.Entry))
	case glua.LTFunction:
	default:
		return scriptError(c.Script.Name, c.Op, fmt.Errorf("%s is not a function: %s", c.Entry, entry.Type().String()))
	}
	L.Push(entry)
	nargs, err := c.Args(L, st.ext)
	if err != nil {
		return scriptError(c.Script.Name, c.Op, fmt.Errorf("convert arguments: %w", err))
	}
	if err := L.PCall(nargs, c.NRet, nil); err != nil {
		return luaError(st.budget, c.Script.Name, c.Op, err)
	}
	var buf [4]glua.LValue
	rets := buf[:0]
	for i := 0; i < c.NRet; i++ {
		rets = append(rets, L.Get(i-c.NRet))
	}
	if err := c.Results(L, st.ext, rets); err != nil {
		return scriptError(c.Script.Name, c.Op, err)
	}
	return nil
}

// load returns the compiled script: from the compiled cache, or compiled
// now when the cache is off (Karmada's behaviour).
func (vm *VM[S]) load(s Script) (*program, error) {
	if vm.cache == nil {
		return compile(s.Name, s.Source)
	}
	return vm.cache.get(s)
}

// luaError turns a Lua error into a ScriptError; a limit that stopped the
// script is wrapped so that errors.Is(err, ErrLimit) holds.
func luaError(b *budget, script string, op configv1alpha1.InterpreterOperation, err error) error {
	msg := err.Error()
	var apiErr *glua.ApiError
	if errors.As(err, &apiErr) && apiErr.Object != nil {
		msg = apiErr.Object.String()
	}
	msg = truncate(strings.TrimSpace(msg))
	if stop := b.exceeded(); stop != nil {
		return scriptError(script, op, &wrappedError{msg: msg, cause: stop})
	}
	return scriptError(script, op, errors.New(msg))
}

func scriptError(script string, op configv1alpha1.InterpreterOperation, err error) error {
	var se *ScriptError
	if errors.As(err, &se) {
		return err
	}
	return &ScriptError{Customization: script, Operation: op, Err: err}
}

// ScriptError is the error of a customization script: it names the
// customization and the operation; the message of a Lua error starts with
// "<customization>:<line>:".
type ScriptError struct {
	Customization string
	Operation     configv1alpha1.InterpreterOperation
	Err           error
}

func (e *ScriptError) Error() string {
	return truncate(fmt.Sprintf("customization %q %s: %v", e.Customization, e.Operation, e.Err))
}

// MaxErrorBytes bounds the text of a script's error (error("...") of any
// size, a result quoted in an error): errors reach logs and Events.
const MaxErrorBytes = 4096

// truncate cuts s to MaxErrorBytes, on a UTF-8 boundary, with a marker
// saying how long it was.
func truncate(s string) string {
	if len(s) <= MaxErrorBytes {
		return s
	}
	return fmt.Sprintf("%s... (truncated, %d bytes in all)", truncateTo(s, MaxErrorBytes), len(s))
}

// truncateTo cuts s to at most n bytes on a UTF-8 boundary.
func truncateTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func (e *ScriptError) Unwrap() error { return e.Err }

// wrappedError keeps the Lua message (with its position) while wrapping the
// limit that caused it.
type wrappedError struct {
	msg   string
	cause error
}

func (e *wrappedError) Error() string { return e.msg }
func (e *wrappedError) Unwrap() error { return e.cause }
