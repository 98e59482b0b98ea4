package vm

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// honestBody builds moderate data (about 3 MiB of strings and tables, and
// as much again of garbage) and returns a summary of it.
const honestBody = `local t = {}
for i = 1, 20000 do
  t[i] = string.format("%s-%08d-%s", obj.kind, i, "0123456789012345678901234567890123456789012345678901234567890123456789")
end
local s = ""
for i = 1, 300 do s = s .. "0123456789" end
return {n = #t, last = t[#t]:sub(1, 10), len = #s}`

const honestWant = `{"last":"X-00020000","len":3000,"n":20000}`

// churnSink keeps the churn's allocations from being optimised away.
var churnSink atomic.Pointer[[]byte]

// churn allocates at least min bytes in Go while calls run, and goes on
// until the guard has asked some call to measure itself (at most 16 times
// min), so that the calls running meanwhile have been exposed to it.
func churn(vm *testVM, min int64) (allocated int64) {
	for vm.guard.active.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	for allocated < min || (vm.guard.asked.Load() == 0 && allocated < 16*min) {
		b := make([]byte, 64<<10)
		b[0] = byte(allocated)
		churnSink.Store(&b)
		allocated += int64(len(b))
	}
	return allocated
}

// runWhile calls fn on n goroutines, each at least once and then again
// until done is closed; it returns the number of calls.
func runWhile(n int, done <-chan struct{}, fn func()) (wait func() int64) {
	var wg sync.WaitGroup
	var calls atomic.Int64
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				fn()
				calls.Add(1)
				select {
				case <-done:
					return
				default:
				}
			}
		}()
	}
	return func() int64 { wg.Wait(); return calls.Load() }
}

// TestAllocationBudgetIgnoresOtherGoroutines: the budget
// used to be charged with the whole process's allocations, so 10
// concurrent honest calls failed while another goroutine allocated.
func TestAllocationBudgetIgnoresOtherGoroutines(t *testing.T) {
	vm := newVM(t, Options{PoolSize: 10, MaxSteps: -1, Timeout: time.Minute, MaxAllocBytes: 32 << 20})
	done := make(chan struct{})
	var failures atomic.Int64
	wait := runWhile(10, done, func() {
		out, err := eval(t, vm, honestBody)
		if err != nil || out != honestWant {
			failures.Add(1)
			t.Errorf("honest call: %s, %v", out, err)
		}
	})
	allocated := churn(vm, 1<<30)
	close(done)
	calls := wait()
	asked := vm.guard.asked.Load()
	t.Logf("%d honest calls, %d MiB allocated meanwhile, %d measurements asked, %d failed", calls, allocated>>20, asked, failures.Load())
	if asked == 0 {
		t.Fatal("the guard never asked a call to measure itself: the churn did not overlap the calls")
	}
}

// TestAllocationBudgetConcurrentHonestAndHostile: memory bombs running
// beside honest calls (and a goroutine allocating 1 GiB) are stopped with
// the limit error, the honest calls succeed.
func TestAllocationBudgetConcurrentHonestAndHostile(t *testing.T) {
	// The timeout is only a safety net: on a loaded machine the table
	// growth takes seconds to reach the budget.
	vm := newVM(t, Options{PoolSize: 10, MaxSteps: -1, Timeout: 5 * time.Minute, MaxAllocBytes: 32 << 20})
	done := make(chan struct{})
	wait := runWhile(3, done, func() {
		if out, err := eval(t, vm, honestBody); err != nil || out != honestWant {
			t.Errorf("honest call: %s, %v", out, err)
		}
	})
	hostile := map[string]string{
		"doubling":  "local s = 'x'\nwhile true do s = s .. s end",
		"tables":    "local t = {}\nwhile true do t[#t+1] = {} end",
		"strings":   "local t = {}\nlocal s = string.format('%099d', 0)\nwhile true do t[#t+1] = s .. #t end",
		"recursion": "local function f(s, n) local t = s .. s; if n > 20 then while true do end end; return f(t, n + 1), t end\nreturn {f('0123456789', 0)}",
	}
	var hwg sync.WaitGroup
	for name, body := range hostile {
		hwg.Add(1)
		go func() {
			defer hwg.Done()
			_, err := eval(t, vm, body)
			if !errors.Is(err, ErrLimit) {
				t.Errorf("%s: got %v, want the allocation limit error", name, err)
				return
			}
			wantErr(t, err, `customization "my-ric" InterpretStatus: my-ric:`, "exceeded its allocation budget of 32 MiB")
		}()
	}
	churn(vm, 1<<30)
	hwg.Wait()
	close(done)
	t.Logf("%d honest calls", wait())
}

// TestCallerDeadlineIsReportedAsSuch: the clock is read once per check, so
// a call that passes the caller's deadline (sooner than the VM's timeout)
// is reported as stopped by the caller, whenever the check runs. With one
// reading per deadline kind, a call preempted between the two at the
// deadline was reported as over the VM's time limit of 1m0s.
func TestCallerDeadlineIsReportedAsSuch(t *testing.T) {
	b := newBudget(time.Minute, -1)
	base := time.Now()
	// The caller's context: a deadline, not yet reported expired by its
	// timer (as under load).
	c := deadlineOnly{deadline: base.Add(50 * time.Millisecond)}
	b.now = func() time.Time { return base }
	b.begin(c)
	// Each later reading of the clock is past the caller's deadline, the
	// first just before it.
	readings := []time.Time{base.Add(49 * time.Millisecond), base.Add(51 * time.Millisecond)}
	b.now = func() time.Time {
		r := readings[0]
		if len(readings) > 1 {
			readings = readings[1:]
		}
		return r
	}
	if b.poll() {
		t.Fatalf("stopped before the deadline: %v", b.exceeded())
	}
	if !b.poll() {
		t.Fatal("not stopped after the caller's deadline")
	}
	err := b.exceeded()
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrLimit) {
		t.Errorf("stopped with %v, want the caller's deadline", err)
	}
}

// deadlineOnly is a context with a deadline whose Err stays nil.
type deadlineOnly struct {
	context.Context
	deadline time.Time
}

func (d deadlineOnly) Deadline() (time.Time, bool) { return d.deadline, true }
func (deadlineOnly) Err() error                    { return nil }
func (deadlineOnly) Value(any) any                 { return nil }
