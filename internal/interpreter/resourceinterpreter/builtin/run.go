package builtin

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// defaultInterpreter is the facade over the built-in and native layers, the
// interpreter propel-controller-manager uses for a kind that no
// ResourceInterpreterCustomization and no interpreter webhook covers.
var defaultInterpreter = sync.OnceValue(func() *resourceinterpreter.Interpreter {
	return resourceinterpreter.New(New(customization.Options{}), native.New())
})

// withoutHook says what the controllers do when no layer answers an
// operation for a kind, as in Karmada.
var withoutHook = map[configv1alpha1.InterpreterOperation]string{
	configv1alpha1.InterpreterOperationInterpretHealth:     "the controllers treat the object as healthy",
	configv1alpha1.InterpreterOperationAggregateStatus:     "the template's status is not updated",
	configv1alpha1.InterpreterOperationInterpretReplica:    "the binding carries no replicas and no requirements",
	configv1alpha1.InterpreterOperationInterpretComponent:  "the scheduler uses InterpretReplica instead",
	configv1alpha1.InterpreterOperationReviseReplica:       "propagated manifests are not revised",
	configv1alpha1.InterpreterOperationRetain:              "only the generic member-field retention applies",
	configv1alpha1.InterpreterOperationInterpretDependency: "no dependencies are propagated",
}

// Run answers op on args as propel-controller-manager does when the
// cluster holds no ResourceInterpreterCustomization and no interpreter
// webhook: the built-in layer, then the native one. It is what
// `propelctl interpret` runs without -f. When neither layer has a hook for
// the kind, the error wraps resourceinterpreter.ErrNoHook and says what the
// controllers do instead.
func Run(ctx context.Context, op configv1alpha1.InterpreterOperation, args customization.Args) ([]customization.Result, error) {
	obj, err := args.Subject(op)
	if err != nil {
		return nil, err
	}
	i := defaultInterpreter()
	if !i.HookEnabled(obj.GroupVersionKind(), op) {
		return nil, fmt.Errorf("%w for %s %s: %s", resourceinterpreter.ErrNoHook, obj.GetAPIVersion(), obj.GetKind(), withoutHook[op])
	}
	return customization.RunOn(ctx, i, op, obj, args)
}

// Entry is one kind Propel ships a built-in interpreter for.
type Entry struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Operations are those the kind defines, in Karmada's rule order.
	Operations []configv1alpha1.InterpreterOperation `json:"operations"`
}

// Table lists the built-in kinds and their operations, sorted by API
// version and kind.
func Table() ([]Entry, error) {
	list, err := Load(FS())
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(list))
	for i := range list {
		ric := &list[i]
		e := Entry{APIVersion: ric.Spec.Target.APIVersion, Kind: ric.Spec.Target.Kind}
		for _, op := range customization.Operations() {
			if customization.ScriptOf(&ric.Spec.Customizations, op) != "" {
				e.Operations = append(e.Operations, op)
			}
		}
		out = append(out, e)
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].APIVersion != out[b].APIVersion {
			return out[a].APIVersion < out[b].APIVersion
		}
		return out[a].Kind < out[b].Kind
	})
	return out, nil
}
