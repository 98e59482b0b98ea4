package harness

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/propel-mc/propel/internal/cli/localenv"
)

// DefaultTimeout is how long Eventually waits unless Timeout says
// otherwise: a minute covers a controller's cache sync, a few retries
// with backoff and a loaded CI machine. Cases that wait for a member's
// pods, a health probe threshold or an API server restart pass a longer
// Timeout.
const DefaultTimeout = time.Minute

// DefaultInterval is how often Eventually and Consistently check.
const DefaultInterval = 100 * time.Millisecond

// PollOption tunes Eventually and Consistently.
type PollOption func(*poll)

type poll struct {
	timeout  time.Duration
	interval time.Duration
	hint     string
	running  []*localenv.Process
}

// Timeout replaces DefaultTimeout.
func Timeout(d time.Duration) PollOption { return func(p *poll) { p.timeout = d } }

// Interval replaces DefaultInterval.
func Interval(d time.Duration) PollOption { return func(p *poll) { p.interval = d } }

// LogsIn names the directory with the processes' logs in the failure
// message, where whoever reads it should look next.
func LogsIn(dir string) PollOption { return func(p *poll) { p.hint = " (logs in " + dir + ")" } }

// WhileRunning fails the wait at once, naming the process and its log,
// when one of procs exits: waiting longer for it would only hide why.
func WhileRunning(procs ...*localenv.Process) PollOption {
	return func(p *poll) { p.running = append(p.running, procs...) }
}

func pollOptions(opts []PollOption) *poll {
	p := &poll{timeout: DefaultTimeout, interval: DefaultInterval}
	for _, o := range opts {
		o(p)
	}
	return p
}

// exited returns an error naming the first of p.running that has exited.
func (p *poll) exited(what string) error {
	for _, proc := range p.running {
		if done, err := proc.Exited(); done {
			return fmt.Errorf("%s exited (%v) while waiting for %s; see %s", proc.Name, err, what, proc.LogPath)
		}
	}
	return nil
}

// Eventually polls cond until it holds or the timeout (DefaultTimeout
// unless an option says otherwise) passes, then fails the test naming what
// was awaited and the last error cond returned. Errors from cond are
// retried, not fatal: objects often appear a moment after the call that
// creates them. A cond that reports progress as its error gets it printed
// when the wait fails.
func Eventually(t testing.TB, what string, cond func(ctx context.Context) (bool, error), opts ...PollOption) {
	t.Helper()
	p := pollOptions(opts)
	ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
	defer cancel()
	var last, fatal error
	err := wait.PollUntilContextCancel(ctx, p.interval, true, func(ctx context.Context) (bool, error) {
		if fatal = p.exited(what); fatal != nil {
			return false, fatal
		}
		ok, err := cond(ctx)
		if err != nil {
			// An error caused by the deadline itself would hide the
			// last real one: client-go's rate limiter refuses a request
			// it could only send after the deadline, before the context
			// ends, and says so only in its message.
			if ctx.Err() == nil && !strings.Contains(err.Error(), "would exceed context deadline") {
				last = err
			}
			return false, nil
		}
		return ok, nil
	})
	switch {
	case fatal != nil:
		t.Fatalf("%v%s", fatal, p.hint)
	case err != nil:
		t.Fatalf("%s: %v (last error: %v)%s", what, err, last, p.hint)
	}
}

// Consistently checks cond at every interval for d and fails the test at
// the first error: for what must NOT happen (nothing deleted, nothing
// rewritten). Only Interval, LogsIn and WhileRunning apply.
func Consistently(t testing.TB, what string, d time.Duration, cond func(ctx context.Context) error, opts ...PollOption) {
	t.Helper()
	p := pollOptions(opts)
	ctx := context.Background()
	for end := time.Now().Add(d); ; time.Sleep(p.interval) {
		if err := p.exited(what); err != nil {
			t.Fatalf("%v%s", err, p.hint)
		}
		if err := cond(ctx); err != nil {
			t.Fatalf("%s: %v%s", what, err, p.hint)
		}
		if !time.Now().Before(end) {
			return
		}
	}
}
