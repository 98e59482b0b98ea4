package lua

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	glua "github.com/yuin/gopher-lua"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// VM runs customization scripts. It is safe for concurrent use.
type VM struct {
	opts  Options
	cache *protoCache
	pool  *pool
	guard *memoryGuard
	memo  *podMemo
	// printed rate-limits the log lines of script print().
	printed printLimiter
}

// New returns a VM with opts (zero values take the defaults).
func New(opts Options) *VM {
	opts = opts.withDefaults()
	vm := &VM{opts: opts, guard: newMemoryGuard(opts.MaxAllocBytes), memo: newPodMemo()}
	if !opts.DisableCache {
		vm.cache = newProtoCache(opts.CacheSize)
	}
	vm.pool = newPool(opts.PoolSize, vm.newState)
	return vm
}

// Close releases the idle states. Calls still running keep theirs.
func (vm *VM) Close() { vm.pool.drain() }

// Compile compiles s through the VM's cache, so that a later call does not
// compile it again; the error is a *CompileError.
func (vm *VM) Compile(s Script) error {
	if vm.cache == nil {
		return Compile(s.Name, s.Source)
	}
	_, err := vm.cache.get(s)
	return err
}

// state is a pooled Lua state with its budget.
type state struct {
	L      *glua.LState
	budget *budget
	guard  *memoryGuard
	iso    *isolation
}

func (vm *VM) newState() (*state, error) {
	L, err := newSandbox(vm.opts)
	if err != nil {
		return nil, err
	}
	b := newBudget(vm.opts.Timeout, vm.opts.MaxSteps)
	b.memo = vm.memo
	b.L, b.maxBytes = L, vm.opts.MaxAllocBytes
	b.lazy = newLazyTables(L)
	b.lazy.wrapRawReaders(L)
	L.SetGlobal("print", L.NewFunction(vm.print))
	iso := isolate(L)
	b.tables = newTableBuilder(L)
	L.SetContext(b)
	vm.guard.register(b)
	return &state{L: L, budget: b, guard: vm.guard, iso: iso}, nil
}

func (s *state) close() {
	s.guard.unregister(s.budget)
	s.L.Close()
}

// call describes one invocation of an entry function.
type call struct {
	script Script
	op     configv1alpha1.InterpreterOperation
	entry  string
	nret   int
	// args pushes the arguments and returns how many.
	args func(L *glua.LState) (int, error)
	// results converts the returned values while the state is held.
	results func(L *glua.LState, rets []glua.LValue) error
}

// run executes c on a pooled state. Any failure closes the state.
func (vm *VM) run(ctx context.Context, c *call) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	st, err := vm.pool.get(ctx)
	if err != nil {
		return vm.scriptError(c, err)
	}
	st.budget.begin(ctx)
	st.budget.script, st.budget.op = c.script.Name, c.op
	vm.guard.enter()
	defer func() {
		if r := recover(); r != nil {
			err = vm.scriptError(c, fmt.Errorf("internal error: %v", r))
		}
		vm.guard.leave()
		st.budget.end()
		if err != nil {
			vm.pool.discard(st)
			return
		}
		st.budget.lazy.detach()
		st.budget.tables.release()
		st.L.SetTop(0)
		vm.pool.put(st)
	}()
	return vm.execute(st, c)
}

func (vm *VM) execute(st *state, c *call) error {
	L := st.L
	L.SetTop(0)
	fn, err := vm.load(L, c.script)
	if err != nil {
		return vm.scriptError(c, err)
	}
	// The chunk runs in an environment of its own (see isolation.go).
	env := st.iso.environment(L)
	fn.Env = env
	L.Push(fn)
	if err := L.PCall(0, 0, nil); err != nil {
		return vm.luaError(st, c, err)
	}
	entry := env.RawGetString(c.entry)
	switch entry.Type() {
	case glua.LTNil:
		return vm.scriptError(c, fmt.Errorf("not found function %s", c.entry))
	case glua.LTFunction:
	default:
		return vm.scriptError(c, fmt.Errorf("%s is not a function: %s", c.entry, entry.Type().String()))
	}
	L.Push(entry)
	nargs, err := c.args(L)
	if err != nil {
		return vm.scriptError(c, fmt.Errorf("convert arguments: %w", err))
	}
	if err := L.PCall(nargs, c.nret, nil); err != nil {
		return vm.luaError(st, c, err)
	}
	rets := make([]glua.LValue, c.nret)
	for i := range rets {
		rets[i] = L.Get(i - c.nret)
	}
	if err := c.results(L, rets); err != nil {
		return vm.scriptError(c, err)
	}
	return nil
}

// load returns the script's chunk as a function: from the compiled cache,
// or compiled now when the cache is off (Karmada's behaviour).
func (vm *VM) load(L *glua.LState, s Script) (*glua.LFunction, error) {
	if vm.cache == nil {
		proto, err := compile(s.Name, s.Source)
		if err != nil {
			return nil, err
		}
		return L.NewFunctionFromProto(proto), nil
	}
	proto, err := vm.cache.get(s)
	if err != nil {
		return nil, err
	}
	return L.NewFunctionFromProto(proto), nil
}

// luaError turns a Lua error into a ScriptError; a limit that stopped the
// script is wrapped so that errors.Is(err, ErrLimit) holds.
func (vm *VM) luaError(st *state, c *call, err error) error {
	msg := err.Error()
	var apiErr *glua.ApiError
	if errors.As(err, &apiErr) && apiErr.Object != nil {
		msg = apiErr.Object.String()
	}
	msg = truncate(strings.TrimSpace(msg))
	if stop := st.budget.exceeded(); stop != nil {
		return vm.scriptError(c, &wrappedError{msg: msg, cause: stop})
	}
	return vm.scriptError(c, errors.New(msg))
}

func (vm *VM) scriptError(c *call, err error) error {
	var se *ScriptError
	if errors.As(err, &se) {
		return err
	}
	return &ScriptError{Customization: c.script.Name, Operation: c.op, Err: err}
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
