package localenv

import (
	"errors"
	"fmt"
	"testing"
)

func TestRetryEarlyExitStartsAgainOnlyAfterAnEarlyExit(t *testing.T) {
	exited := fmt.Errorf("start: %w", exitedError{"kube-apiserver exited while waiting for /readyz"})
	timedOut := errors.New("kube-apiserver is not ready: timed out")
	for _, tc := range []struct {
		name      string
		results   []error
		wantCalls int
		wantErr   error
	}{
		{"ready at once", []error{nil}, 1, nil},
		{"exits once, then ready", []error{exited, nil}, 2, nil},
		{"exits every time", []error{exited, exited, nil}, startAttempts, ErrExitedEarly},
		{"times out: no second start", []error{timedOut, nil}, 1, timedOut},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			err := retryEarlyExit(startAttempts, func() error {
				calls++
				return tc.results[calls-1]
			})
			if calls != tc.wantCalls {
				t.Errorf("started %d times, want %d", calls, tc.wantCalls)
			}
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
		})
	}
}
