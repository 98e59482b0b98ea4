package webhook

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// CallError is a failed webhook call. Its message is Karmada's
// `failed calling webhook "<config>/<hook>": <reason>` (Karmada additionally
// prefixes "Internal error occurred: " by wrapping it in an API status error).
type CallError struct {
	// Webhook is the uid of the webhook, "<configuration>/<webhook>".
	Webhook string
	Err     error
}

func (e *CallError) Error() string {
	return fmt.Sprintf("failed calling webhook %q: %v", e.Webhook, e.Err)
}

func (e *CallError) Unwrap() error { return e.Err }

// callError names the webhook; the reason is bounded in length, since it
// may carry text of the webhook's choosing.
func callError(uid string, err error) error {
	return &CallError{Webhook: uid, Err: boundedtext.Error(err)}
}

// ErrNoHook is returned when an operation is called for a kind no webhook
// handles; callers check HookEnabled first.
var ErrNoHook = errors.New("no interpreter webhook matches")

func noHookError(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) error {
	return fmt.Errorf("%w %s for %q", ErrNoHook, op, gvk.String())
}
