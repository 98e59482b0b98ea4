package customization

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func TestParseOperation(t *testing.T) {
	for _, op := range Operations() {
		got, err := ParseOperation(strings.ToLower(string(op)))
		if err != nil || got != op {
			t.Errorf("%s: %v %v", op, got, err)
		}
	}
	_, err := ParseOperation("Prune")
	want := "operation Prune is not supported. Use one of: Retain, InterpretReplica, InterpretComponent, ReviseReplica, InterpretStatus, AggregateStatus, InterpretHealth, InterpretDependency"
	if err == nil || err.Error() != want {
		t.Errorf("got %v", err)
	}
}

func TestRunOperation(t *testing.T) {
	rules := configv1alpha1.CustomizationRules{
		ReplicaResource: &configv1alpha1.ReplicaResourceRequirement{LuaScript: `local kube = require("kube")
function GetReplicas(o) return o.spec.replicas, {resourceRequest = {cpu = kube.resourceAdd("100m", "100m")}} end`},
		Retention:         &configv1alpha1.LocalValueRetention{LuaScript: "function Retain(d, o) return d end"},
		StatusAggregation: &configv1alpha1.StatusAggregation{LuaScript: "function AggregateStatus(d, items) d.status = {n = #items} return d end"},
	}
	list := []configv1alpha1.ResourceInterpreterCustomization{ric("x", rules)}
	res, err := RunOperation(ctx, list, opReplica, Args{Desired: newWorkload(t)}, asLayer)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := res[1].Value.(*workv1alpha2.ReplicaRequirements)
	if len(res) != 2 || res[0].Name != "replica" || res[0].Value != int32(2) || res[1].Name != "requires" || req == nil || req.ResourceRequest.Cpu().String() != "200m" {
		t.Errorf("got %+v", res)
	}
	// The observed object alone is accepted for single-object operations.
	if res, err := RunOperation(ctx, list, opReplica, Args{Observed: newWorkload(t)}, asLayer); err != nil || res[0].Value != int32(2) {
		t.Errorf("observed only: %v %v", res, err)
	}
	res, err = RunOperation(ctx, list, opAggStat, Args{Desired: newWorkload(t), StatusItems: []workv1alpha2.AggregatedStatusItem{{ClusterName: "a"}}}, asLayer)
	if err != nil || res[0].Name != "aggregatedStatus" {
		t.Errorf("AggregateStatus: %v %v", res, err)
	}
	for _, c := range []struct {
		op   configv1alpha1.InterpreterOperation
		args Args
		msg  string
	}{
		{opReplica, Args{}, ErrNoObject.Error()},
		{opReplica, Args{Desired: newWorkload(t), Observed: newWorkload(t)}, ErrBothObjects.Error()},
		{opRetain, Args{Observed: newWorkload(t)}, ErrNoDesired.Error()},
		{opRetain, Args{Desired: newWorkload(t)}, ErrNoObserved.Error()},
		{opHealth, Args{Desired: newWorkload(t)}, "rule is not enabled"},
	} {
		if _, err := RunOperation(ctx, list, c.op, c.args, asLayer); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s %+v: got %v, want %q", c.op, c.args, err, c.msg)
		}
	}
	// Every operation maps to its result names.
	all := configv1alpha1.CustomizationRules{
		ComponentResource:        &configv1alpha1.ComponentResourceRequirement{LuaScript: "function GetComponents(o) return nil end"},
		ReplicaRevision:          &configv1alpha1.ReplicaRevision{LuaScript: "function ReviseReplica(o, r) return o end"},
		StatusReflection:         &configv1alpha1.StatusReflection{LuaScript: "function ReflectStatus(o) return {} end"},
		HealthInterpretation:     &configv1alpha1.HealthInterpretation{LuaScript: healthTrue},
		DependencyInterpretation: &configv1alpha1.DependencyInterpretation{LuaScript: "function GetDependencies(o) return {} end"},
		Retention:                rules.Retention,
	}
	names := map[configv1alpha1.InterpreterOperation]string{
		opComps: "components", opRevise: "revised", opStatus: "status", opHealth: "healthy", opDeps: "dependencies", opRetain: "retained",
	}
	for op, name := range names {
		args := Args{Desired: newWorkload(t)}
		if op == opRetain {
			args.Observed = newWorkload(t)
		}
		res, err := RunOperation(ctx, []configv1alpha1.ResourceInterpreterCustomization{ric("y", all)}, op, args, asLayer)
		if err != nil || len(res) != 1 || res[0].Name != name {
			t.Errorf("%s: %+v %v", op, res, err)
		}
	}
}

// asLayer runs the layer without the facade's checks.
func asLayer(l layer.Layer) layer.Operations { return l.(*Interpreter) }

func TestCheck(t *testing.T) {
	r := ric("x", configv1alpha1.CustomizationRules{
		ReplicaResource:      &configv1alpha1.ReplicaResourceRequirement{LuaScript: "function GetReplicas(o)\n  return =\nend"},
		HealthInterpretation: &configv1alpha1.HealthInterpretation{LuaScript: healthTrue},
	})
	checks := Check(&r)
	if len(checks) != len(Operations()) {
		t.Fatalf("%d checks", len(checks))
	}
	for _, c := range checks {
		switch c.Operation {
		case opReplica:
			var ce *luavm.CompileError
			if !c.Set || !errors.As(c.Err, &ce) || ce.Line != 2 {
				t.Errorf("%s: %+v", c.Operation, c)
			}
		case opHealth:
			if !c.Set || c.Err != nil {
				t.Errorf("%s: %+v", c.Operation, c)
			}
		default:
			if c.Set || c.Err != nil {
				t.Errorf("%s: %+v", c.Operation, c)
			}
		}
	}
}

// The missing-object errors are the package's sentinels and name no
// command-line flag (the CLI words them in its flags' terms).
func TestArgsErrorsNameNoFlag(t *testing.T) {
	obj := &unstructured.Unstructured{}
	for _, c := range []struct {
		op   configv1alpha1.InterpreterOperation
		args Args
		want error
	}{
		{configv1alpha1.InterpreterOperationInterpretReplica, Args{}, ErrNoObject},
		{configv1alpha1.InterpreterOperationInterpretReplica, Args{Desired: obj, Observed: obj}, ErrBothObjects},
		{configv1alpha1.InterpreterOperationRetain, Args{Observed: obj}, ErrNoDesired},
		{configv1alpha1.InterpreterOperationRetain, Args{Desired: obj}, ErrNoObserved},
	} {
		_, err := c.args.Subject(c.op)
		if !errors.Is(err, c.want) || strings.Contains(err.Error(), "-file") {
			t.Errorf("%s: got %v, want %v", c.op, err, c.want)
		}
	}
}
