package customization

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// GetDependencies implements layer.Layer: every dependency script of the
// GVK runs (in customization name order), each result is validated, and
// the union is returned sorted by apiVersion, kind, namespace, name.
func (i *Interpreter) GetDependencies(ctx context.Context, obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	const op = configv1alpha1.InterpreterOperationInterpretDependency
	if obj == nil {
		return nil, fmt.Errorf("%s: nil object", op)
	}
	c, err := i.current()
	if err != nil {
		return nil, err
	}
	_, rules := c.lookup(obj.GroupVersionKind(), op)
	if len(rules) == 0 {
		return nil, fmt.Errorf("%w: no %s script for %s", ErrNoRule, op, obj.GroupVersionKind())
	}
	var all []configv1alpha1.DependentObjectReference
	for _, r := range rules {
		if r.err != nil {
			return nil, &luavm.ScriptError{Customization: r.script.Name, Operation: op, Err: r.err}
		}
		deps, err := i.vm.GetDependencies(ctx, r.script, obj)
		if err != nil {
			return nil, err
		}
		if err := layer.ValidateDependencies(deps); err != nil {
			return nil, &luavm.ScriptError{Customization: r.script.Name, Operation: op, Err: err}
		}
		all = append(all, deps...)
	}
	return unionDependencies(all), nil
}

// depKey identifies a reference for the union. Like Karmada, which keys
// a set by the struct (label selectors by pointer), references with a
// label selector are never merged.
type depKey struct {
	apiVersion, kind, namespace, name string
}

func unionDependencies(all []configv1alpha1.DependentObjectReference) []configv1alpha1.DependentObjectReference {
	seen := make(map[depKey]struct{}, len(all))
	out := make([]configv1alpha1.DependentObjectReference, 0, len(all))
	for _, d := range all {
		if d.LabelSelector == nil {
			k := depKey{d.APIVersion, d.Kind, d.Namespace, d.Name}
			if _, dup := seen[k]; dup {
				continue
			}
			seen[k] = struct{}{}
		}
		out = append(out, d)
	}
	sort.SliceStable(out, func(a, b int) bool {
		x, y := out[a], out[b]
		if x.APIVersion != y.APIVersion {
			return x.APIVersion < y.APIVersion
		}
		if x.Kind != y.Kind {
			return x.Kind < y.Kind
		}
		if x.Namespace != y.Namespace {
			return x.Namespace < y.Namespace
		}
		return x.Name < y.Name
	})
	return out
}
