package customization

import (
	"slices"
	"strings"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"

	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// ruleOrder lists the operations a customization can define, in Karmada's
// rule order. Read only.
var ruleOrder = [...]configv1alpha1.InterpreterOperation{
	configv1alpha1.InterpreterOperationRetain,
	configv1alpha1.InterpreterOperationInterpretReplica,
	configv1alpha1.InterpreterOperationInterpretComponent,
	configv1alpha1.InterpreterOperationReviseReplica,
	configv1alpha1.InterpreterOperationInterpretStatus,
	configv1alpha1.InterpreterOperationAggregateStatus,
	configv1alpha1.InterpreterOperationInterpretHealth,
	configv1alpha1.InterpreterOperationInterpretDependency,
}

// Operations returns the operations a customization can define, in
// Karmada's rule order.
func Operations() []configv1alpha1.InterpreterOperation {
	return append([]configv1alpha1.InterpreterOperation(nil), ruleOrder[:]...)
}

// ScriptOf returns the Lua script rules define for op, "" when none.
func ScriptOf(rules *configv1alpha1.CustomizationRules, op configv1alpha1.InterpreterOperation) string {
	switch op {
	case configv1alpha1.InterpreterOperationRetain:
		if r := rules.Retention; r != nil {
			return r.LuaScript
		}
	case configv1alpha1.InterpreterOperationInterpretReplica:
		if r := rules.ReplicaResource; r != nil {
			return r.LuaScript
		}
	case configv1alpha1.InterpreterOperationInterpretComponent:
		if r := rules.ComponentResource; r != nil {
			return r.LuaScript
		}
	case configv1alpha1.InterpreterOperationReviseReplica:
		if r := rules.ReplicaRevision; r != nil {
			return r.LuaScript
		}
	case configv1alpha1.InterpreterOperationInterpretStatus:
		if r := rules.StatusReflection; r != nil {
			return r.LuaScript
		}
	case configv1alpha1.InterpreterOperationAggregateStatus:
		if r := rules.StatusAggregation; r != nil {
			return r.LuaScript
		}
	case configv1alpha1.InterpreterOperationInterpretHealth:
		if r := rules.HealthInterpretation; r != nil {
			return r.LuaScript
		}
	case configv1alpha1.InterpreterOperationInterpretDependency:
		if r := rules.DependencyInterpretation; r != nil {
			return r.LuaScript
		}
	}
	return ""
}

// rule is the script of one operation, with the error compiling it gave;
// an operation whose script does not compile returns that error.
type rule struct {
	script luavm.Script
	err    error
}

// target holds the merged rules of one GVK: one script per operation, and
// every dependency script.
type target struct {
	rules map[configv1alpha1.InterpreterOperation]*rule
	deps  []*rule
}

// config is an immutable snapshot of the customizations, published
// atomically.
type config struct {
	targets map[schema.GroupVersionKind]*target
	// version numbers the configuration (layer.Versioned).
	version uint64
}

// configVersions numbers the configurations of every Interpreter; 0 is
// never used, so that it can stand for "nothing loaded".
var configVersions atomic.Uint64

func (c *config) lookup(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) (*rule, []*rule) {
	t := c.targets[gvk]
	if t == nil {
		return nil, nil
	}
	if op == configv1alpha1.InterpreterOperationInterpretDependency {
		return nil, t.deps
	}
	return t.rules[op], nil
}

// compileProblem is a script that did not compile.
type compileProblem struct {
	ric *configv1alpha1.ResourceInterpreterCustomization
	op  configv1alpha1.InterpreterOperation
	err error
}

// buildConfig indexes customizations by exact target GVK with Karmada's
// merge rules: in name order, the first non-empty script of an operation
// wins; every non-empty dependency script is kept, in name order. Each kept
// script is compiled with compile.
func buildConfig(list []configv1alpha1.ResourceInterpreterCustomization, compile func(luavm.Script) error) (*config, []compileProblem) {
	sorted := make([]*configv1alpha1.ResourceInterpreterCustomization, len(list))
	for i := range list {
		sorted[i] = &list[i]
	}
	slices.SortStableFunc(sorted, func(a, b *configv1alpha1.ResourceInterpreterCustomization) int {
		return strings.Compare(a.Name, b.Name)
	})
	cfg := &config{targets: map[schema.GroupVersionKind]*target{}, version: configVersions.Add(1)}
	var problems []compileProblem
	for _, ric := range sorted {
		t := cfg.target(targetGVK(ric.Spec.Target))
		for _, op := range ruleOrder {
			src := ScriptOf(&ric.Spec.Customizations, op)
			if src == "" || (op != configv1alpha1.InterpreterOperationInterpretDependency && t.rules[op] != nil) {
				continue
			}
			r := &rule{script: luavm.NewScript(ric.Name, src)}
			if r.err = compile(r.script); r.err != nil {
				problems = append(problems, compileProblem{ric: ric, op: op, err: r.err})
			}
			if op == configv1alpha1.InterpreterOperationInterpretDependency {
				t.deps = append(t.deps, r)
			} else {
				t.rules[op] = r
			}
		}
	}
	return cfg, problems
}

func (c *config) target(gvk schema.GroupVersionKind) *target {
	t := c.targets[gvk]
	if t == nil {
		t = &target{rules: map[configv1alpha1.InterpreterOperation]*rule{}}
		c.targets[gvk] = t
	}
	return t
}

// targetGVK parses a customization target; an unparsable apiVersion gives
// a key with only the kind, as in Karmada.
func targetGVK(t configv1alpha1.CustomizationTarget) schema.GroupVersionKind {
	gv, err := schema.ParseGroupVersion(t.APIVersion)
	if err != nil {
		return schema.GroupVersionKind{Kind: t.Kind}
	}
	return gv.WithKind(t.Kind)
}
