package resourceinterpreter

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// Answer names who answers one operation for one kind: the layer and,
// for the webhook and Lua layers, the hook within it.
type Answer struct {
	// Layer is the layer's name: "webhook", "customization", "builtin" or
	// "native".
	Layer string `json:"layer"`
	// Hook is "<configuration>/<webhook>" for the webhook layer, the
	// ResourceInterpreterCustomization name(s) for the Lua layers, empty
	// for the native layer.
	Hook string `json:"hook,omitempty"`
}

// String is "layer" or "layer hook".
func (a Answer) String() string {
	if a.Hook == "" {
		return a.Layer
	}
	return a.Layer + " " + a.Hook
}

// hookNamer is what the webhook and Lua layers offer to name the hook
// answering an operation.
type hookNamer interface {
	HookName(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) string
}

// Answerer returns who answers op for gvk, as a call would pick it.
// InterpretComponent has no fallback: when no layer hooks it, the error
// wraps ErrNoHook.
func (i *Interpreter) Answerer(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) (Answer, error) {
	l, err := i.pick(gvk, op, op != configv1alpha1.InterpreterOperationInterpretComponent)
	if err != nil {
		return Answer{}, err
	}
	if a := answerOf(l, gvk, op); a.Layer != "" {
		return a, nil
	}
	return Answer{Layer: l.Name()}, nil
}

// answerOf names l's hook for op of gvk. A layer that names hooks but
// names none for op (its configuration changed since it was picked) gives
// the zero Answer.
func answerOf(l layer.Layer, gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) Answer {
	a := Answer{Layer: l.Name()}
	if n, ok := l.(hookNamer); ok {
		if a.Hook = n.HookName(gvk, op); a.Hook == "" {
			return Answer{}
		}
	}
	return a
}
