package harness

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Eventually polls cond every 100ms until it holds or timeout passes, then
// fails the test naming what was awaited and the last error cond returned.
// Errors from cond are retried, not fatal: objects often appear a moment
// after the call that creates them. A cond that reports progress as its
// error gets it printed when the wait fails.
func Eventually(t testing.TB, what string, timeout time.Duration, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last error
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		if err != nil {
			// An error caused by the deadline itself would hide the
			// last real one.
			if ctx.Err() == nil {
				last = err
			}
			return false, nil
		}
		return ok, nil
	})
	if err != nil {
		t.Fatalf("%s: %v (last error: %v)", what, err, last)
	}
}
