package customization

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// ParseOperation matches name case-insensitively against Operations().
func ParseOperation(name string) (configv1alpha1.InterpreterOperation, error) {
	names := make([]string, len(ruleOrder))
	for i, op := range ruleOrder {
		if strings.EqualFold(string(op), name) {
			return op, nil
		}
		names[i] = string(op)
	}
	return "", fmt.Errorf("operation %s is not supported. Use one of: %s", name, strings.Join(names, ", "))
}

// Args are the inputs of one operation run by Run.
type Args struct {
	Desired, Observed *unstructured.Unstructured
	// Replicas is ReviseReplica's desired replica count.
	Replicas int64
	// StatusItems are AggregateStatus's items.
	StatusItems []workv1alpha2.AggregatedStatusItem
}

// Result is one named result of an operation, in Karmada's naming
// ("replica", "requires", "retained", ...).
type Result struct {
	Name  string
	Value any
}

// The errors of Args that lack an object an operation takes. They name
// no command-line flag: the caller that reads the objects from flags
// (propelctl interpret) words them in its flags' terms.
var (
	// ErrNoObject: an operation other than Retain got neither object.
	ErrNoObject = errors.New("the operation takes the desired or the observed object; neither is set")
	// ErrBothObjects: an operation other than Retain got both objects.
	ErrBothObjects = errors.New("the operation takes the desired or the observed object, not both")
	// ErrNoDesired: Retain got no desired object.
	ErrNoDesired = errors.New("retain takes the desired object; it is not set")
	// ErrNoObserved: Retain got no observed object.
	ErrNoObserved = errors.New("retain takes the observed object; it is not set")
)

// object returns the single object an operation other than Retain takes.
func (a Args) object() (*unstructured.Unstructured, error) {
	switch {
	case a.Desired == nil && a.Observed == nil:
		return nil, ErrNoObject
	case a.Desired != nil && a.Observed != nil:
		return nil, ErrBothObjects
	case a.Desired != nil:
		return a.Desired, nil
	}
	return a.Observed, nil
}

// RunOperation runs op of customizations on args: the path of
// `propelctl interpret -f CUSTOMIZATION.yaml --operation OP`. The layer
// answers through checked(layer), which is to apply the checks the
// controller applies to every answer (the CLI passes the facade,
// resourceinterpreter.New), so that the command accepts and refuses what
// the controller does, with the same errors.
func RunOperation(ctx context.Context, customizations []configv1alpha1.ResourceInterpreterCustomization, op configv1alpha1.InterpreterOperation, args Args, checked func(layer.Layer) layer.Operations) ([]Result, error) {
	i := New(Options{})
	defer i.vm.Close()
	i.LoadConfig(customizations)
	obj, err := args.Subject(op)
	if err != nil {
		return nil, err
	}
	enabled, err := i.HookEnabled(obj.GroupVersionKind(), op)
	if err != nil {
		return nil, err
	}
	if !enabled {
		return nil, fmt.Errorf("%w: %s for %s", ErrNoRule, op, obj.GroupVersionKind())
	}
	return RunOn(ctx, checked(i), op, obj, args)
}

// Subject checks that args hold the objects op takes and returns the one
// whose kind selects the interpreter (the desired object for Retain).
func (a Args) Subject(op configv1alpha1.InterpreterOperation) (*unstructured.Unstructured, error) {
	if op == configv1alpha1.InterpreterOperationRetain {
		if a.Desired == nil {
			return nil, ErrNoDesired
		}
		if a.Observed == nil {
			return nil, ErrNoObserved
		}
		return a.Desired, nil
	}
	return a.object()
}

// RunOn runs op of ops on obj (the Subject of args) and names the results
// as Karmada's interpret command does.
func RunOn(ctx context.Context, ops layer.Operations, op configv1alpha1.InterpreterOperation, obj *unstructured.Unstructured, args Args) ([]Result, error) {
	one := func(name string, v any, err error) ([]Result, error) {
		if err != nil {
			return nil, err
		}
		return []Result{{Name: name, Value: v}}, nil
	}
	switch op {
	case configv1alpha1.InterpreterOperationRetain:
		v, err := ops.Retain(ctx, args.Desired, args.Observed)
		return one("retained", v, err)
	case configv1alpha1.InterpreterOperationInterpretReplica:
		n, req, err := ops.GetReplicas(ctx, obj)
		if err != nil {
			return nil, err
		}
		return []Result{{Name: "replica", Value: n}, {Name: "requires", Value: req}}, nil
	case configv1alpha1.InterpreterOperationInterpretComponent:
		v, err := ops.GetComponents(ctx, obj)
		return one("components", v, err)
	case configv1alpha1.InterpreterOperationReviseReplica:
		v, err := ops.ReviseReplica(ctx, obj, args.Replicas)
		return one("revised", v, err)
	case configv1alpha1.InterpreterOperationInterpretStatus:
		v, err := ops.ReflectStatus(ctx, obj)
		return one("status", v, err)
	case configv1alpha1.InterpreterOperationAggregateStatus:
		v, err := ops.AggregateStatus(ctx, obj, args.StatusItems)
		return one("aggregatedStatus", v, err)
	case configv1alpha1.InterpreterOperationInterpretHealth:
		v, err := ops.InterpretHealth(ctx, obj)
		return one("healthy", v, err)
	case configv1alpha1.InterpreterOperationInterpretDependency:
		v, err := ops.GetDependencies(ctx, obj)
		return one("dependencies", v, err)
	}
	return nil, fmt.Errorf("operation %s is not supported", op)
}

// RuleCheck is the validation of one rule of a customization.
type RuleCheck struct {
	Operation configv1alpha1.InterpreterOperation
	// Set is false when the customization has no script for Operation.
	Set bool
	// Err is the compile error, a *luavm.CompileError.
	Err error
}

// Check compiles (does not run) every rule of ric, in rule order.
func Check(ric *configv1alpha1.ResourceInterpreterCustomization) []RuleCheck {
	out := make([]RuleCheck, 0, len(ruleOrder))
	for _, op := range ruleOrder {
		src := ScriptOf(&ric.Spec.Customizations, op)
		c := RuleCheck{Operation: op, Set: src != ""}
		if c.Set {
			c.Err = luavm.Compile(ric.Name, src)
		}
		out = append(out, c)
	}
	return out
}
