// Package resourceinterpreter is the one place controllers ask about
// workloads. The Interpreter facade picks, for each (GVK, operation), exactly
// one layer: a customized webhook, else a user's Lua customization, else
// Propel's built-in Lua customizations, else the native Go interpreters. The
// first layer with a hook answers alone; its error is returned, never
// replaced by a lower layer's answer.
package resourceinterpreter

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// ResourceInterpreter is the full contract of the facade. Controllers
// usually depend on a narrower interface of their own.
type ResourceInterpreter interface {
	HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) bool
	layer.Operations
}

// Interpreter dispatches each call to one layer. The last layer is the
// fallback that answers when no earlier layer has a hook (the native one,
// which reports "not found" errors for kinds it does not know).
type Interpreter struct {
	layers []layer.Layer

	// answers is the last Answer per answerKey (see noteAnswer);
	// answersMu serialises its changes.
	answers   map[answerKey]Answer
	answersMu sync.RWMutex
	// recorder and failures are set by RecordEvents.
	recorder record.EventRecorder
	failures *failureTracker
	// routes keeps the layer picked per (kind, operation) while the
	// layers' configurations stay the same.
	routes *routeTable
}

var _ ResourceInterpreter = (*Interpreter)(nil)

// New returns a facade over layers in precedence order; the last one is
// the fallback.
func New(layers ...layer.Layer) *Interpreter {
	return &Interpreter{layers: layers, routes: newRouteTable(layers)}
}

// ErrNoHook is returned by GetComponents when no customization or webhook
// answers it: there is no native component interpreter.
var ErrNoHook = errors.New("no interpreter hook")

// HookEnabled reports whether some layer answers op for gvk. While a layer's
// configuration is not synced it answers true, because a hook might exist:
// the caller then calls the operation and gets a retryable ErrNotReady
// instead of skipping, say, Retain.
func (i *Interpreter) HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) bool {
	for _, l := range i.layers {
		enabled, err := l.HookEnabled(gvk, op)
		if err != nil || enabled {
			return true
		}
	}
	return false
}

// pick returns the layer that answers op for gvk: the first with a hook,
// else the fallback (when allowed). A layer that is not ready stops the
// search: falling through could give a different, wrong answer.
func (i *Interpreter) pick(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation, fallback bool) (layer.Layer, error) {
	for idx, l := range i.layers {
		last := idx == len(i.layers)-1
		if last && fallback {
			return l, nil
		}
		enabled, err := l.HookEnabled(gvk, op)
		if err != nil {
			return nil, fmt.Errorf("%s of %s: %s layer: %w", op, gvkString(gvk), l.Name(), err)
		}
		if enabled {
			return l, nil
		}
	}
	return nil, fmt.Errorf("%s of %s: %w", op, gvkString(gvk), ErrNoHook)
}

// call runs fn on the layer that answers op for obj and records metrics.
func call[T any](ctx context.Context, i *Interpreter, obj *unstructured.Unstructured, op configv1alpha1.InterpreterOperation, fallback bool, fn func(layer.Layer) (T, error)) (T, error) {
	var zero T
	if obj == nil {
		return zero, fmt.Errorf("%s: nil object", op)
	}
	r, made, err := i.route(obj, op, fallback)
	if err != nil {
		observeUnanswered(op, obj.GroupVersionKind())
		return zero, err
	}
	l, gvk := r.layer, r.gvk
	start := time.Now()
	out, err := fn(l)
	r.metrics.observe(time.Since(start), err)
	if made {
		i.noteAnswer(r.answer, obj, gvk, op)
	}
	if i.failures != nil {
		if err != nil {
			i.failures.failed(obj, err)
		} else {
			i.failures.succeeded(l, obj, op)
		}
	}
	if err != nil {
		// A layer's error may carry text of a script's or webhook's choosing
		// (error("..."), status.message): bounded before any caller logs it.
		return zero, fmt.Errorf("%s %s of %s %s: %w", l.Name(), op, gvkString(gvk), objectKey(obj), boundedtext.Error(err))
	}
	return out, nil
}

// GetReplicas returns the replicas and per-replica requirements of a
// template: a valid replica count and no negative resource request.
func (i *Interpreter) GetReplicas(ctx context.Context, obj *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error) {
	type result struct {
		replicas int32
		reqs     *workv1alpha2.ReplicaRequirements
	}
	r, err := call(ctx, i, obj, configv1alpha1.InterpreterOperationInterpretReplica, true, func(l layer.Layer) (result, error) {
		n, reqs, err := l.GetReplicas(ctx, obj)
		if err == nil {
			err = checkReplicas(n, reqs)
		}
		return result{n, reqs}, err
	})
	return r.replicas, r.reqs, err
}

// ReviseReplica returns obj with its replicas set to replicas. replicas
// must be a valid replica count, and the answer must be the same object
// (apiVersion, kind, namespace, name) with valid replicas in spec.replicas
// when it has that field.
func (i *Interpreter) ReviseReplica(ctx context.Context, obj *unstructured.Unstructured, replicas int64) (*unstructured.Unstructured, error) {
	if _, err := layer.ReplicasFromInt64(replicas); err != nil && obj != nil {
		return nil, fmt.Errorf("%s of %s %s: desired replicas %w", configv1alpha1.InterpreterOperationReviseReplica, gvkString(obj.GroupVersionKind()), objectKey(obj), err)
	}
	return call(ctx, i, obj, configv1alpha1.InterpreterOperationReviseReplica, true, func(l layer.Layer) (*unstructured.Unstructured, error) {
		out, err := l.ReviseReplica(ctx, obj, replicas)
		if err != nil {
			return nil, err
		}
		if err := checkSameObject(obj, out); err != nil {
			return nil, err
		}
		if err := checkSpecReplicas(out); err != nil {
			return nil, err
		}
		return out, nil
	})
}

// GetComponents returns the components (pod templates) of a multi-template
// workload. Only webhooks and Lua customizations answer it.
func (i *Interpreter) GetComponents(ctx context.Context, obj *unstructured.Unstructured) ([]workv1alpha2.Component, error) {
	return call(ctx, i, obj, configv1alpha1.InterpreterOperationInterpretComponent, false, func(l layer.Layer) ([]workv1alpha2.Component, error) {
		comps, err := l.GetComponents(ctx, obj)
		if err != nil {
			return nil, err
		}
		if err := layer.CheckComponents(comps); err != nil {
			return nil, fmt.Errorf("answered %w", err)
		}
		return comps, nil
	})
}

// Retain merges the member-owned fields of observed into desired.
func (i *Interpreter) Retain(ctx context.Context, desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	return call(ctx, i, desired, configv1alpha1.InterpreterOperationRetain, true, func(l layer.Layer) (*unstructured.Unstructured, error) {
		out, err := l.Retain(ctx, desired, observed)
		if err != nil {
			return nil, err
		}
		if err := checkSameObject(desired, out); err != nil {
			return nil, err
		}
		return out, nil
	})
}

// AggregateStatus returns obj with the member statuses aggregated into it.
func (i *Interpreter) AggregateStatus(ctx context.Context, obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	return call(ctx, i, obj, configv1alpha1.InterpreterOperationAggregateStatus, true, func(l layer.Layer) (*unstructured.Unstructured, error) {
		return l.AggregateStatus(ctx, obj, items)
	})
}

// ReflectStatus returns the status of a member object to record in its Work.
func (i *Interpreter) ReflectStatus(ctx context.Context, obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	return call(ctx, i, obj, configv1alpha1.InterpreterOperationInterpretStatus, true, func(l layer.Layer) (*runtime.RawExtension, error) {
		return l.ReflectStatus(ctx, obj)
	})
}

// InterpretHealth reports whether a member object is healthy.
func (i *Interpreter) InterpretHealth(ctx context.Context, obj *unstructured.Unstructured) (bool, error) {
	return call(ctx, i, obj, configv1alpha1.InterpreterOperationInterpretHealth, true, func(l layer.Layer) (bool, error) {
		return l.InterpretHealth(ctx, obj)
	})
}

// GetDependencies returns the objects a template needs propagated with it.
func (i *Interpreter) GetDependencies(ctx context.Context, obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	return call(ctx, i, obj, configv1alpha1.InterpreterOperationInterpretDependency, true, func(l layer.Layer) ([]configv1alpha1.DependentObjectReference, error) {
		deps, err := l.GetDependencies(ctx, obj)
		if err != nil {
			return nil, err
		}
		if err := checkDependencies(obj, deps); err != nil {
			return nil, err
		}
		return deps, nil
	})
}

func gvkString(gvk schema.GroupVersionKind) string {
	if gvk.Group == "" {
		return gvk.Version + "/" + gvk.Kind
	}
	return gvk.Group + "/" + gvk.Version + "/" + gvk.Kind
}

func objectKey(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}
