package vm

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/convert"
)

// limitCase runs body as ReflectStatus and checks that it fails with a
// limit error naming the customization, the operation and the line, within
// maxDur; then that the VM still answers.
func limitCase(t *testing.T, vm *testVM, body string, maxDur time.Duration, parts ...string) error {
	t.Helper()
	start := time.Now()
	_, err := eval(t, vm, body)
	if d := time.Since(start); d > maxDur {
		t.Errorf("took %v, want under %v", d, maxDur)
	}
	wantErr(t, err, append([]string{`customization "my-ric" InterpretStatus: my-ric:`}, parts...)...)
	if got := mustEval(t, vm, `return {ok = true}`); got != `{"ok":true}` {
		t.Errorf("next call: %s", got)
	}
	return err
}

func TestInfiniteLoopStopsByInstructionBudget(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1, MaxSteps: 1_000_000, Timeout: time.Minute})
	err := limitCase(t, vm, "local n = 0\nwhile true do end", 2*time.Second, "my-ric:3:", "exceeded its budget of 1000000 instructions")
	if !errors.Is(err, ErrLimit) {
		t.Errorf("%v is not ErrLimit", err)
	}
}

func TestInfiniteLoopStopsByTimeout(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1, MaxSteps: -1, Timeout: 100 * time.Millisecond})
	err := limitCase(t, vm, "while true do\nend", time.Second, "my-ric:3:", "exceeded its time limit of 100ms")
	if !errors.Is(err, ErrLimit) {
		t.Errorf("%v is not ErrLimit", err)
	}
}

func TestCallerContextStopsScript(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1, MaxSteps: -1, Timeout: time.Minute})
	c, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := reflectStatus(vm, c, NewScript(ric, "function ReflectStatus(o)\n  while true do end\nend"), obj(t, `{"kind":"X"}`))
	wantErr(t, err, "my-ric:2:", "context deadline exceeded")
	if time.Since(start) > time.Second {
		t.Errorf("took %v", time.Since(start))
	}
}

func TestDefaultLimitsStopLoopsQuickly(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector slows the VM tenfold")
	}
	// With the default limits (10M instructions, 1 s) both loops stop in
	// well under a second on an idle machine; the bound leaves room for a
	// loaded one, where the time limit may come first.
	vm := newVM(t, Options{PoolSize: 1})
	for _, body := range []string{"while true do\nend", "local t = {}\nwhile true do t[#t+1] = \"x\" end"} {
		if err := limitCase(t, vm, body, 3*time.Second, "my-ric:3:", "script exceeded its"); !errors.Is(err, ErrLimit) {
			t.Errorf("%v is not ErrLimit", err)
		}
	}
}

func TestUnboundedTableStops(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1, MaxSteps: 500_000, Timeout: time.Minute})
	limitCase(t, vm, "local t = {}\nwhile true do t[#t+1] = \"x\" end", 5*time.Second, "my-ric:3:", "exceeded its budget of 500000 instructions")
}

func TestUnboundedTableStopsByAllocationBudget(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1, MaxSteps: -1, Timeout: 10 * time.Second, MaxAllocBytes: 16 << 20})
	limitCase(t, vm, "local t = {}\nwhile true do t[#t+1] = {} end", 5*time.Second, "my-ric:3:", "exceeded its allocation budget of 16 MiB")
}

func TestStringDoublingStopsByAllocationBudget(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1, MaxSteps: -1, Timeout: 10 * time.Second, MaxAllocBytes: 32 << 20})
	limitCase(t, vm, "local s = 'x'\nwhile true do s = s .. s end", 5*time.Second, "my-ric:3:", "exceeded its allocation budget of 32 MiB")
}

func TestHugeStringArgument(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1})
	limitCase(t, vm, `local s = "0123456789"
for i = 1, 6 do s = s .. s .. s .. s .. s .. s .. s .. s .. s .. s end
return {s:find("x")}`, time.Second, "my-ric:4:", "bad argument #1 to string.find", "exceeds the limit of 1000000 bytes")
}

func TestPathologicalPatternStops(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1, Timeout: 200 * time.Millisecond})
	limitCase(t, vm, `local s = "aaaaaaaaaa"
s = s .. s .. s .. s .. s .. s .. s .. s .. s .. s
s = s .. s .. s .. s .. s .. s .. s .. s .. s .. s
return {s:find("a*a*a*a*a*a*b")}`, 2*time.Second, "my-ric:5:", "exceeded its time limit")
}

func TestDeepRecursionAndStackOverflow(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1})
	limitCase(t, vm, "local function f(n) return 1 + f(n + 1) end\nreturn {f(1)}", time.Second, "stack overflow")
	limitCase(t, vm, `local s = "0123456789"
for i = 1, 4 do s = s .. s .. s .. s .. s .. s .. s .. s .. s .. s end
return {string.byte(s, 1, -1)}`, time.Second, "registry overflow")
}

func TestFailedStateIsDiscarded(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 1})
	idle := func() *state[*convert.State] {
		st, err := vm.pool.get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		vm.pool.put(st)
		return st
	}
	mustEval(t, vm, "return {}")
	healthy := idle()
	if idle() != healthy {
		t.Fatal("a healthy state was not reused")
	}
	if _, err := eval(t, vm, "error('x')"); err == nil {
		t.Fatal("no error")
	}
	if idle() == healthy {
		t.Error("the failed state was reused")
	}
}

func TestMemoryGuardStopsWhenIdle(t *testing.T) {
	vm := newVM(t, Options{})
	mustEval(t, vm, "return {}")
	deadline := time.Now().Add(5 * time.Second)
	for {
		vm.guard.mu.Lock()
		running := vm.guard.running
		vm.guard.mu.Unlock()
		if !running {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the memory guard goroutine still runs with no active call")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestPoolIsBounded(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 2, Timeout: time.Minute})
	s := NewScript(ric, "function ReflectStatus(o)\n  local n = 0\n  for i = 1, 50000 do n = n + i end\n  return {n = n}\nend")
	var wg sync.WaitGroup
	var mu sync.Mutex
	maxLive := 0
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := reflectStatus(vm, ctx, s, obj(t, `{"kind":"X"}`))
			mu.Lock()
			maxLive = max(maxLive, len(vm.pool.slots))
			mu.Unlock()
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if maxLive > 2 {
		t.Errorf("%d states alive, pool size is 2", maxLive)
	}

	// All states busy: a caller whose context ends stops waiting.
	held := make([]*state[*convert.State], 0, 2)
	for i := 0; i < 2; i++ {
		st, err := vm.pool.get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, st)
	}
	c, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err := reflectStatus(vm, c, s, obj(t, `{"kind":"X"}`))
	wantErr(t, err, "waiting for a free Lua state")
	for _, st := range held {
		vm.pool.put(st)
	}
}

func TestCompileReportsLine(t *testing.T) {
	cases := map[string]int{
		"function GetReplicas(obj)\n  return 1 +\nend": 3,
		"local x = 1\nlocal y = = 2":                   2,
		"function f()\n  return 1":                     2,
		"x = 'unterminated\n":                          2, // the lexer reports the end of the line
		"local a = 1\nlocal b = 2\ngoto = 3":           3,
	}
	for src, line := range cases {
		err := Compile(ric, src)
		var ce *CompileError
		if !errors.As(err, &ce) || ce.Line != line || ce.Name != ric {
			t.Errorf("%q: got %v, want line %d", src, err, line)
			continue
		}
		if !strings.HasPrefix(err.Error(), ric+":") {
			t.Errorf("%q: message %q does not start with the chunk name", src, err)
		}
	}
	if err := Compile(ric, "function f() return 1 end"); err != nil {
		t.Error(err)
	}
	// Calling a broken script reports the compile error with the line.
	vm := newVM(t, Options{})
	_, err := interpretHealth(vm, ctx, NewScript(ric, "function InterpretHealth(o)\n  return ==\nend"), obj(t, `{"kind":"X"}`))
	wantErr(t, err, `customization "my-ric" InterpretHealth: my-ric:2:`)
}

func TestCompiledScriptCache(t *testing.T) {
	vm := newVM(t, Options{CacheSize: 2})
	s := NewScript(ric, "function InterpretHealth(o) return true end")
	for i := 0; i < 3; i++ {
		if _, err := interpretHealth(vm, ctx, s, obj(t, `{"kind":"X"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if n := vm.cache.lru.Len(); n != 1 {
		t.Errorf("cache holds %d entries, want 1", n)
	}
	e, ok := vm.cache.lru.Peek(s.cacheKey())
	if !ok || e.prog == nil || e.prog.proto == nil {
		t.Fatal("script not cached")
	}
	// The same text under another customization name is another entry:
	// the name is the chunk name quoted by errors.
	if err := vm.Compile(NewScript("other", s.Source)); err != nil || vm.cache.lru.Len() != 2 {
		t.Errorf("got %v, %d entries", err, vm.cache.lru.Len())
	}
	// A literal Script without a precomputed key works too.
	if _, err := interpretHealth(vm, ctx, Script{Name: ric, Source: s.Source}, obj(t, `{"kind":"X"}`)); err != nil {
		t.Error(err)
	}
	if off := newVM(t, Options{DisableCache: true}); off.cache != nil {
		t.Error("DisableCache keeps a cache")
	} else if h, err := interpretHealth(off, ctx, s, obj(t, `{"kind":"X"}`)); err != nil || !h {
		t.Errorf("uncached call: %v %v", h, err)
	}
}
