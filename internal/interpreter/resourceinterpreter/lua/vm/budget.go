package vm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	glua "github.com/yuin/gopher-lua"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// ErrLimit is wrapped by every error of a script stopped by a limit (time,
// instructions, allocations), so callers can tell them from script bugs.
var ErrLimit = errors.New("lua script limit exceeded")

// limitError is the reason a budget stopped a call.
type limitError struct{ msg string }

func (e *limitError) Error() string        { return e.msg }
func (e *limitError) Is(target error) bool { return target == ErrLimit }

// pollEvery is how many instructions run between two checks of the clock
// and of the caller's context.
const pollEvery = 1024

// closedChan is returned by Done once a budget is exhausted.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// budget is the context.Context installed once on a pooled state and reset
// for every call. gopher-lua asks Done before every instruction, so Done
// counts instructions; every pollEvery instructions it also looks at the
// clock and the caller's context. When the memory guard asks for it (through
// measure), Done measures what the call's state holds (see footprint.go)
// and stops the call if that is over the allocation budget.
type budget struct {
	reason atomic.Pointer[error]
	// measure is set by the memory guard: the next Done measures the
	// state's footprint.
	measure atomic.Bool

	// owned by the goroutine running the call
	parent   context.Context
	script   string
	op       configv1alpha1.InterpreterOperation
	deadline time.Time
	// callerDeadline is true when the caller's context set the deadline.
	callerDeadline bool
	// now reads the clock (time.Now; tests replace it).
	now      func() time.Time
	timeout  time.Duration
	maxSteps int64
	steps    int64
	nextPoll int64
	// L is the state the budget is installed on; maxBytes bounds its
	// footprint (0 disables the bound).
	L        *glua.LState
	maxBytes int64
	fp       footprint
	// built is what library functions built since the state was last
	// measured for them (see reserve).
	built int64

	// shared with the memory guard
	mu        sync.Mutex
	active    bool
	allocBase int64
}

func newBudget(timeout time.Duration, maxSteps int64) *budget {
	return &budget{timeout: timeout, maxSteps: maxSteps, parent: context.Background(), now: time.Now}
}

// begin arms the budget for one call under ctx.
func (b *budget) begin(ctx context.Context) {
	b.parent = ctx
	b.deadline, b.callerDeadline = b.now().Add(b.timeout), false
	if d, ok := ctx.Deadline(); ok && d.Before(b.deadline) {
		b.deadline, b.callerDeadline = d, true
	}
	b.steps, b.built = 0, 0
	b.nextPoll = pollEvery
	if b.maxSteps > 0 && b.maxSteps < b.nextPoll {
		b.nextPoll = b.maxSteps + 1
	}
	b.reason.Store(nil)
	b.measure.Store(false)
	b.mu.Lock()
	b.active, b.allocBase = true, -1
	b.mu.Unlock()
}

// end disarms the budget.
func (b *budget) end() {
	b.mu.Lock()
	b.active = false
	b.mu.Unlock()
	b.parent = context.Background()
}

// stop records why the call must stop; the first reason wins.
func (b *budget) stop(err error) {
	b.reason.CompareAndSwap(nil, &err)
}

// exceeded returns the reason the call was stopped, nil while it may run.
func (b *budget) exceeded() error {
	if r := b.reason.Load(); r != nil {
		return *r
	}
	return nil
}

// Done implements context.Context; see the type comment.
func (b *budget) Done() <-chan struct{} {
	if b.reason.Load() != nil {
		return closedChan
	}
	b.steps++
	if b.steps >= b.nextPoll && b.poll() {
		return closedChan
	}
	if b.measure.Load() && b.overBudget() {
		return closedChan
	}
	return nil
}

// overBudget measures the state's footprint and stops the call when it is
// over maxBytes. It runs on the call's goroutine (Done is called by the VM
// and the string library only), so walking the state is safe.
func (b *budget) overBudget() bool {
	b.measure.Store(false)
	if b.L == nil || b.maxBytes <= 0 {
		return false
	}
	held := b.fp.measure(b.L, b.maxBytes)
	if held <= b.maxBytes {
		return false
	}
	b.stop(&limitError{fmt.Sprintf("script exceeded its allocation budget of %d MiB (it holds over %d MiB of strings and tables)",
		b.maxBytes>>20, held>>20)})
	return true
}

// reserveBatch is how much library functions may build, in strings of
// at most this size each, between two measures of the state: measuring on
// every small string.format would cost more than the formatting.
func (b *budget) reserveBatch() int64 { return b.maxBytes / 16 }

// reserve charges a string of up to n bytes that the library function
// what is about to build, before it builds it: a result bigger than the
// budget, or than what the state's footprint leaves of it, stops the call.
// Without it one call (table.concat with a long separator) could allocate
// gigabytes before the memory guard could ask for a measure.
func (b *budget) reserve(what string, n int64) error {
	if b.L == nil || b.maxBytes <= 0 {
		return nil
	}
	b.built += n
	if n <= b.reserveBatch() && b.built <= b.reserveBatch() {
		return nil
	}
	b.built = 0
	var held int64
	if n <= b.maxBytes {
		held = b.fp.measure(b.L, b.maxBytes-n)
		if held+n <= b.maxBytes {
			return nil
		}
	}
	msg := fmt.Sprintf("script exceeded its allocation budget of %d MiB (%s would build up to %d MiB", b.maxBytes>>20, what, n>>20)
	if held > 0 {
		msg += fmt.Sprintf(" while the script holds %d MiB", held>>20)
	}
	err := &limitError{msg + ")"}
	b.stop(err)
	return err
}

func (b *budget) poll() bool {
	b.nextPoll = b.steps + pollEvery
	switch {
	case b.maxSteps > 0 && b.steps > b.maxSteps:
		b.stop(&limitError{fmt.Sprintf("script exceeded its budget of %d instructions", b.maxSteps)})
	case b.parent.Err() != nil:
		b.stop(fmt.Errorf("script stopped: %w", b.parent.Err()))
	case b.now().After(b.deadline):
		// One reading of the clock decides: with two (one per deadline
		// kind), a call preempted between them at the caller's deadline
		// was reported as over the VM's own time limit.
		if b.callerDeadline {
			b.stop(fmt.Errorf("script stopped: %w", context.DeadlineExceeded))
		} else {
			b.stop(&limitError{fmt.Sprintf("script exceeded its time limit of %s", b.timeout)})
		}
	default:
		if b.maxSteps > 0 && b.nextPoll > b.maxSteps+1 {
			b.nextPoll = b.maxSteps + 1
		}
		return false
	}
	return true
}

// Err implements context.Context.
func (b *budget) Err() error { return b.exceeded() }

// Deadline implements context.Context.
func (b *budget) Deadline() (time.Time, bool) { return b.deadline, true }

// Value implements context.Context.
func (b *budget) Value(key any) any { return b.parent.Value(key) }
