package lua

import (
	"context"
	"errors"
	"fmt"
	"slices"

	glua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

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

func pushObjects(objs ...*unstructured.Unstructured) func(L *glua.LState) (int, error) {
	return func(L *glua.LState) (int, error) {
		for _, o := range objs {
			lv, err := objectToLua(L, o)
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

// GetReplicas runs GetReplicas(desiredObj) -> replica, requirement.
func (vm *VM) GetReplicas(ctx context.Context, s Script, obj *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error) {
	var replicas int32
	var req *workv1alpha2.ReplicaRequirements
	err := vm.run(ctx, &call{
		script: s, op: configv1alpha1.InterpreterOperationInterpretReplica,
		entry: EntryGetReplicas, nret: 2, args: pushObjects(obj),
		results: func(L *glua.LState, rets []glua.LValue) error {
			n, ok := rets[0].(glua.LNumber)
			if !ok {
				return fmt.Errorf("result type %s is not number", rets[0].Type().String())
			}
			replicas = int32(n)
			switch r := rets[1].(type) {
			case *glua.LNilType:
				return nil
			case *glua.LTable:
				var err error
				req, err = decodeRequirements(L, r)
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
func (vm *VM) GetComponents(ctx context.Context, s Script, obj *unstructured.Unstructured) ([]workv1alpha2.Component, error) {
	var comps []workv1alpha2.Component
	err := vm.run(ctx, &call{
		script: s, op: configv1alpha1.InterpreterOperationInterpretComponent,
		entry: EntryGetComponents, nret: 1, args: pushObjects(obj),
		results: func(L *glua.LState, rets []glua.LValue) error {
			switch r := rets[0].(type) {
			case *glua.LNilType:
				return nil
			case *glua.LTable:
				return decodeTable(L, r, &comps)
			default:
				return fmt.Errorf("expected result type 'table' or 'nil' from GetComponents, but got '%s'", r.Type().String())
			}
		},
	})
	var se *ScriptError
	if errors.As(err, &se) {
		se.Err = fmt.Errorf("failed to run 'GetComponents' script: %w", se.Err)
	}
	if err != nil {
		return nil, err
	}
	return comps, nil
}

// ReviseReplica runs ReviseReplica(desiredObj, desiredReplica) -> object.
func (vm *VM) ReviseReplica(ctx context.Context, s Script, obj *unstructured.Unstructured, replicas int64) (*unstructured.Unstructured, error) {
	var out *unstructured.Unstructured
	err := vm.run(ctx, &call{
		script: s, op: configv1alpha1.InterpreterOperationReviseReplica,
		entry: EntryReviseReplica, nret: 1,
		args: func(L *glua.LState) (int, error) {
			if _, err := pushObjects(obj)(L); err != nil {
				return 0, err
			}
			L.Push(glua.LNumber(replicas))
			return 2, nil
		},
		results: objectResult(&out, obj),
	})
	return out, err
}

// Retain runs Retain(desiredObj, observedObj) -> object.
func (vm *VM) Retain(ctx context.Context, s Script, desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	var out *unstructured.Unstructured
	err := vm.run(ctx, &call{
		script: s, op: configv1alpha1.InterpreterOperationRetain,
		entry: EntryRetain, nret: 1, args: pushObjects(desired, observed),
		results: objectResult(&out, desired, observed),
	})
	return out, err
}

// AggregateStatus runs AggregateStatus(desiredObj, statusItems) -> object.
// There are no references: every nested empty table is dropped.
func (vm *VM) AggregateStatus(ctx context.Context, s Script, obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var out *unstructured.Unstructured
	err := vm.run(ctx, &call{
		script: s, op: configv1alpha1.InterpreterOperationAggregateStatus,
		entry: EntryAggregateStatus, nret: 1,
		args: func(L *glua.LState) (int, error) {
			if _, err := pushObjects(obj)(L); err != nil {
				return 0, err
			}
			lv, err := statusItemsToLua(L, items)
			if err != nil {
				return 0, err
			}
			L.Push(lv)
			return 2, nil
		},
		results: objectResult(&out),
	})
	return out, err
}

func objectResult(out **unstructured.Unstructured, refs ...*unstructured.Unstructured) func(*glua.LState, []glua.LValue) error {
	return func(L *glua.LState, rets []glua.LValue) error {
		t, err := tableResult(rets[0])
		if err != nil {
			return err
		}
		*out, err = decodeObject(L, t, refs...)
		return err
	}
}

// ReflectStatus runs ReflectStatus(observedObj) -> status.
func (vm *VM) ReflectStatus(ctx context.Context, s Script, obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	var out *runtime.RawExtension
	err := vm.run(ctx, &call{
		script: s, op: configv1alpha1.InterpreterOperationInterpretStatus,
		entry: EntryReflectStatus, nret: 1, args: pushObjects(obj),
		results: func(L *glua.LState, rets []glua.LValue) error {
			t, ok := rets[0].(*glua.LTable)
			if !ok {
				return fmt.Errorf("expect the returned replica type is table but got %s", rets[0].Type().String())
			}
			var err error
			out, err = decodeRaw(L, t)
			return err
		},
	})
	return out, err
}

// InterpretHealth runs InterpretHealth(observedObj) -> boolean.
func (vm *VM) InterpretHealth(ctx context.Context, s Script, obj *unstructured.Unstructured) (bool, error) {
	var healthy bool
	err := vm.run(ctx, &call{
		script: s, op: configv1alpha1.InterpreterOperationInterpretHealth,
		entry: EntryInterpretHealth, nret: 1, args: pushObjects(obj),
		results: func(_ *glua.LState, rets []glua.LValue) error {
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

// GetDependencies runs GetDependencies(desiredObj) -> references. The
// result is not validated here; the customization layer does that.
func (vm *VM) GetDependencies(ctx context.Context, s Script, obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	var deps []configv1alpha1.DependentObjectReference
	err := vm.run(ctx, &call{
		script: s, op: configv1alpha1.InterpreterOperationInterpretDependency,
		entry: EntryGetDependencies, nret: 1, args: pushObjects(obj),
		results: func(L *glua.LState, rets []glua.LValue) error {
			t, err := tableResult(rets[0])
			if err != nil {
				return err
			}
			if v, ok := lazyOf(L).typedOf(t); ok {
				if d, ok := v.([]configv1alpha1.DependentObjectReference); ok {
					deps = slices.Clone(d)
					for i := range deps {
						deps[i].LabelSelector = deps[i].LabelSelector.DeepCopy()
					}
					return nil
				}
			}
			return decodeTable(L, t, &deps)
		},
	})
	return deps, err
}
