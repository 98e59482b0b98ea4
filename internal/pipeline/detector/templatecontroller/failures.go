package templatecontroller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// interpreterError is a failure of the resource interpreter (a webhook that
// does not answer, a script that errors) while building a binding: it is
// retried with a capped delay and logged, not only recorded as an event.
type interpreterError struct {
	op  configv1alpha1.InterpreterOperation
	err error
}

func (e *interpreterError) Error() string {
	if e.op == configv1alpha1.InterpreterOperationInterpretComponent {
		return fmt.Sprintf("interpret components: %v", e.err)
	}
	return fmt.Sprintf("interpret replicas: %v", e.err)
}
func (e *interpreterError) Unwrap() error { return e.err }

func asInterpreterError(err error) (*interpreterError, bool) {
	var ie *interpreterError
	return ie, errors.As(err, &ie)
}

// failureLog rate-limits the logging of interpreter failures: at most one
// line per template per interval, so a webhook outage shows in the log
// (naming template, operation and webhook) without flooding it. It holds
// only the templates that failed since their last success.
type failureLog struct {
	interval time.Duration
	mu       sync.Mutex
	last     map[Key]time.Time
}

func newFailureLog(interval time.Duration) *failureLog {
	return &failureLog{interval: interval, last: map[Key]time.Time{}}
}

func (f *failureLog) log(ctx context.Context, k Key, ie *interpreterError, retryIn time.Duration) {
	now := time.Now()
	f.mu.Lock()
	last, seen := f.last[k]
	due := !seen || now.Sub(last) >= f.interval
	if due {
		f.last[k] = now
	}
	f.mu.Unlock()
	if !due {
		return
	}
	// The controller's logger names the template (LogConstructor).
	kv := []interface{}{"operation", ie.op, "retryIn", retryIn}
	if ce := (*webhook.CallError)(nil); errors.As(ie.err, &ce) {
		kv = append(kv, "webhook", ce.Webhook)
	}
	log.FromContext(ctx).Error(boundedtext.Error(ie.err), "resource interpreter failed, will retry", kv...)
}

// forget drops k after a successful sync, so its next failure is logged.
func (f *failureLog) forget(k Key) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.last, k)
}
