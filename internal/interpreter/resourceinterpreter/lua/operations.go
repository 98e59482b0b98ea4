package lua

import (
	"context"
	"errors"
	"fmt"
	"slices"

	glua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/convert"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/kube"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// VM runs the entry functions of customization scripts on the sandboxed
// states of a vm.VM, each with its conversion state and the kube module.
// It is safe for concurrent use.
type VM struct {
	vm   *vm.VM[*convert.State]
	memo *kube.Memo
}

// Option configures what a VM's scripts see beyond the sandbox limits of
// vm.Options.
type Option func(*kube.Options)

// WithPriorityClassName makes kube.accuratePodRequirements report the pod's
// priorityClassName, as Karmada does under the ResourceQuotaEstimate
// feature gate (alpha, off by default); native.WithPriorityClassName is the
// same for the native layer.
func WithPriorityClassName() Option {
	return func(o *kube.Options) { o.PriorityClassName = true }
}

// New returns a VM with opts (zero values take the defaults) and options.
// Every state of the VM gets the same kube module options: they are fixed
// with the feature gates at start, and the module's memo relies on it.
func New(opts vm.Options, options ...Option) *VM {
	var kubeOpts kube.Options
	for _, o := range options {
		o(&kubeOpts)
	}
	memo := kube.NewMemo()
	return &VM{memo: memo, vm: vm.New(opts, func(L *glua.LState) (*convert.State, error) {
		st := convert.NewState(L)
		vm.RegisterModule(L, kube.ModuleName, kube.Module(L, st, memo, kubeOpts))
		return st, nil
	})}
}

// Close releases the idle states. Calls still running keep theirs.
func (v *VM) Close() { v.vm.Close() }

// Compile compiles s through the VM's cache, so that a later call does not
// compile it again; the error is a *vm.CompileError.
func (v *VM) Compile(s vm.Script) error { return v.vm.Compile(s) }

// call is one call of an entry function.
type call = vm.Call[*convert.State]

// Entry function names, per operation.
const (
	EntryRetain          = "Retain"
	EntryGetReplicas     = "GetReplicas"
	EntryGetComponents   = "GetComponents"
	EntryReviseReplica   = "ReviseReplica"
	EntryReflectStatus   = "ReflectStatus"
	EntryAggregateStatus = "AggregateStatus"
	EntryInterpretHealth = "InterpretHealth"
	EntryGetDependencies = "GetDependencies"
)

func pushObjects(objs ...*unstructured.Unstructured) func(L *glua.LState, st *convert.State) (int, error) {
	return func(L *glua.LState, st *convert.State) (int, error) {
		for _, o := range objs {
			lv, err := st.Object(o)
			if err != nil {
				return 0, err
			}
			L.Push(lv)
		}
		return len(objs), nil
	}
}

func tableResult(v glua.LValue) (*glua.LTable, error) {
	t, ok := v.(*glua.LTable)
	if !ok {
		return nil, fmt.Errorf("expect the returned requires type is table but got %s", v.Type().String())
	}
	return t, nil
}

// GetReplicas runs GetReplicas(desiredObj) -> replica, requirement. The
// replica count converts through layer.ReplicasFromFloat64: a fraction,
// NaN, an infinity or a number outside 0..MaxInt32 is an error, never a
// truncated count.
func (v *VM) GetReplicas(ctx context.Context, s vm.Script, obj *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error) {
	var replicas int32
	var req *workv1alpha2.ReplicaRequirements
	err := v.vm.Run(ctx, &call{
		Script: s, Op: configv1alpha1.InterpreterOperationInterpretReplica,
		Entry: EntryGetReplicas, NRet: 2, Args: pushObjects(obj),
		Results: func(L *glua.LState, st *convert.State, rets []glua.LValue) error {
			n, ok := rets[0].(glua.LNumber)
			if !ok {
				return fmt.Errorf("result type %s is not number", rets[0].Type().String())
			}
			var err error
			if replicas, err = layer.ReplicasFromFloat64(float64(n)); err != nil {
				return fmt.Errorf("returned replicas %w", err)
			}
			switch r := rets[1].(type) {
			case *glua.LNilType:
				return nil
			case *glua.LTable:
				req, err = st.Requirements(r)
				return err
			default:
				return fmt.Errorf("expect the returned requires type is table but got %s", r.Type().String())
			}
		},
	})
	if err != nil {
		return 0, nil, err
	}
	return replicas, req, nil
}

// GetComponents runs GetComponents(desiredObj) -> components.
func (v *VM) GetComponents(ctx context.Context, s vm.Script, obj *unstructured.Unstructured) ([]workv1alpha2.Component, error) {
	var comps []workv1alpha2.Component
	err := v.vm.Run(ctx, &call{
		Script: s, Op: configv1alpha1.InterpreterOperationInterpretComponent,
		Entry: EntryGetComponents, NRet: 1, Args: pushObjects(obj),
		Results: func(L *glua.LState, st *convert.State, rets []glua.LValue) error {
			switch r := rets[0].(type) {
			case *glua.LNilType:
				return nil
			case *glua.LTable:
				return st.DecodeInto(r, &comps)
			default:
				return fmt.Errorf("expected result type 'table' or 'nil' from GetComponents, but got '%s'", r.Type().String())
			}
		},
	})
	var se *vm.ScriptError
	if errors.As(err, &se) {
		se.Err = fmt.Errorf("failed to run 'GetComponents' script: %w", se.Err)
	}
	if err != nil {
		return nil, err
	}
	return comps, nil
}

// ReviseReplica runs ReviseReplica(desiredObj, desiredReplica) -> object.
func (v *VM) ReviseReplica(ctx context.Context, s vm.Script, obj *unstructured.Unstructured, replicas int64) (*unstructured.Unstructured, error) {
	var out *unstructured.Unstructured
	err := v.vm.Run(ctx, &call{
		Script: s, Op: configv1alpha1.InterpreterOperationReviseReplica,
		Entry: EntryReviseReplica, NRet: 1,
		Args: func(L *glua.LState, st *convert.State) (int, error) {
			if _, err := pushObjects(obj)(L, st); err != nil {
				return 0, err
			}
			L.Push(glua.LNumber(replicas))
			return 2, nil
		},
		Results: objectResult(&out, obj),
	})
	return out, err
}

// Retain runs Retain(desiredObj, observedObj) -> object.
func (v *VM) Retain(ctx context.Context, s vm.Script, desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	var out *unstructured.Unstructured
	err := v.vm.Run(ctx, &call{
		Script: s, Op: configv1alpha1.InterpreterOperationRetain,
		Entry: EntryRetain, NRet: 1, Args: pushObjects(desired, observed),
		Results: objectResult(&out, desired, observed),
	})
	return out, err
}

// AggregateStatus runs AggregateStatus(desiredObj, statusItems) -> object.
// There are no references: every nested empty table is dropped. As with
// the native interpreters, the result shares with obj the members the
// script left untouched, but metadata.
func (v *VM) AggregateStatus(ctx context.Context, s vm.Script, obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var out *unstructured.Unstructured
	err := v.vm.Run(ctx, &call{
		Script: s, Op: configv1alpha1.InterpreterOperationAggregateStatus,
		Entry: EntryAggregateStatus, NRet: 1,
		Args: func(L *glua.LState, st *convert.State) (int, error) {
			if _, err := pushObjects(obj)(L, st); err != nil {
				return 0, err
			}
			lv, err := st.StatusItems(items)
			if err != nil {
				return 0, err
			}
			L.Push(lv)
			return 2, nil
		},
		Results: func(_ *glua.LState, st *convert.State, rets []glua.LValue) error {
			t, err := tableResult(rets[0])
			if err != nil {
				return err
			}
			out, err = st.DecodeObjectSharing(t)
			return err
		},
	})
	return out, err
}

func objectResult(out **unstructured.Unstructured, refs ...*unstructured.Unstructured) func(*glua.LState, *convert.State, []glua.LValue) error {
	return func(_ *glua.LState, st *convert.State, rets []glua.LValue) error {
		t, err := tableResult(rets[0])
		if err != nil {
			return err
		}
		*out, err = st.DecodeObject(t, refs...)
		return err
	}
}

// ReflectStatus runs ReflectStatus(observedObj) -> status.
func (v *VM) ReflectStatus(ctx context.Context, s vm.Script, obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	var out *runtime.RawExtension
	err := v.vm.Run(ctx, &call{
		Script: s, Op: configv1alpha1.InterpreterOperationInterpretStatus,
		Entry: EntryReflectStatus, NRet: 1, Args: pushObjects(obj),
		Results: func(L *glua.LState, st *convert.State, rets []glua.LValue) error {
			t, ok := rets[0].(*glua.LTable)
			if !ok {
				return fmt.Errorf("expect the returned replica type is table but got %s", rets[0].Type().String())
			}
			var err error
			out, err = st.DecodeRaw(t)
			return err
		},
	})
	return out, err
}

// InterpretHealth runs InterpretHealth(observedObj) -> boolean.
func (v *VM) InterpretHealth(ctx context.Context, s vm.Script, obj *unstructured.Unstructured) (bool, error) {
	var healthy bool
	err := v.vm.Run(ctx, &call{
		Script: s, Op: configv1alpha1.InterpreterOperationInterpretHealth,
		Entry: EntryInterpretHealth, NRet: 1, Args: pushObjects(obj),
		Results: func(_ *glua.LState, _ *convert.State, rets []glua.LValue) error {
			b, ok := rets[0].(glua.LBool)
			if !ok {
				return fmt.Errorf("expect the returned health type is boolean but got %s", rets[0].Type().String())
			}
			healthy = bool(b)
			return nil
		},
	})
	return healthy, err
}

// GetDependencies runs GetDependencies(desiredObj) -> references. Only
// the number of references is checked here (layer.MaxDependencies); the
// customization layer validates them.
func (v *VM) GetDependencies(ctx context.Context, s vm.Script, obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	var deps []configv1alpha1.DependentObjectReference
	err := v.vm.Run(ctx, &call{
		Script: s, Op: configv1alpha1.InterpreterOperationInterpretDependency,
		Entry: EntryGetDependencies, NRet: 1, Args: pushObjects(obj),
		Results: func(L *glua.LState, st *convert.State, rets []glua.LValue) error {
			t, err := tableResult(rets[0])
			if err != nil {
				return err
			}
			if v, ok := st.Typed(t); ok {
				if d, ok := v.([]configv1alpha1.DependentObjectReference); ok {
					if err := layer.CheckDependencyCount(len(d)); err != nil {
						return err
					}
					deps = slices.Clone(d)
					for i := range deps {
						deps[i].LabelSelector = deps[i].LabelSelector.DeepCopy()
					}
					return nil
				}
			}
			// Counted before decoding, so that an oversized answer costs
			// no more than its count.
			st.Fill(t)
			if err := layer.CheckDependencyCount(t.Len()); err != nil {
				return err
			}
			return st.DecodeInto(t, &deps)
		},
	})
	return deps, err
}
