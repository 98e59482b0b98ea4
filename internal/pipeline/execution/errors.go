package execution

import (
	"context"
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
)

// unreachableError marks a member request that got no usable answer.
type unreachableError struct{ err error }

func (e *unreachableError) Error() string { return "member unreachable: " + e.err.Error() }
func (e *unreachableError) Unwrap() error { return e.err }

// memberErr classifies the error of a request to a member cluster: no
// answer (transport, TLS, failed discovery), a timeout or 429/503/504 mark
// the member unreachable; any other API answer (refusal, validation, a
// kind the member does not serve) is a real failure and is returned as is.
func memberErr(err error) error {
	if err == nil || meta.IsNoMatchError(err) {
		return err
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		switch status.Status().Code {
		case http.StatusTooManyRequests, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return &unreachableError{err}
		}
		if apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) {
			return &unreachableError{err}
		}
		return err
	}
	return &unreachableError{err}
}

// isTransient reports errors that say nothing about the Work: the member
// cannot be reached, the interpreter's configuration is not loaded yet, or
// the reconcile was cancelled. They leave the Work's conditions and
// finalizer untouched and are retried with backoff.
func isTransient(err error) bool {
	var unreachable *unreachableError
	return errors.As(err, &unreachable) || errors.Is(err, layer.ErrNotReady) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
