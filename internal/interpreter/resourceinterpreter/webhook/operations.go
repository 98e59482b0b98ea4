package webhook

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// GetReplicas asks the InterpretReplica webhook; requirements may be nil.
func (i *Interpreter) GetReplicas(ctx context.Context, obj *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error) {
	_, res, err := i.interpret(ctx, &attributes{op: configv1alpha1.InterpreterOperationInterpretReplica, object: obj})
	if err != nil {
		return 0, nil, err
	}
	return *res.Replicas, res.ReplicaRequirements, nil
}

// ReviseReplica asks the ReviseReplica webhook to set replicas (cast to
// int32, as Karmada does) and returns the patched object.
func (i *Interpreter) ReviseReplica(ctx context.Context, obj *unstructured.Unstructured, replicas int64) (*unstructured.Unstructured, error) {
	return i.patchCall(ctx, &attributes{op: configv1alpha1.InterpreterOperationReviseReplica, object: obj, replicas: int32(replicas)})
}

// GetComponents asks the InterpretComponent webhook; components may be empty.
func (i *Interpreter) GetComponents(ctx context.Context, obj *unstructured.Unstructured) ([]workv1alpha2.Component, error) {
	_, res, err := i.interpret(ctx, &attributes{op: configv1alpha1.InterpreterOperationInterpretComponent, object: obj})
	if err != nil {
		return nil, err
	}
	return res.Components, nil
}

// Retain sends the desired object with the observed one and returns the
// desired object patched by the webhook.
func (i *Interpreter) Retain(ctx context.Context, desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	return i.patchCall(ctx, &attributes{op: configv1alpha1.InterpreterOperationRetain, object: desired, observed: observed})
}

// AggregateStatus sends the object with the member statuses and returns the
// patched object. The input is not modified (Karmada sends a deep copy).
func (i *Interpreter) AggregateStatus(ctx context.Context, obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	return i.patchCall(ctx, &attributes{op: configv1alpha1.InterpreterOperationAggregateStatus, object: obj, items: items})
}

// ReflectStatus returns the webhook's rawStatus verbatim.
func (i *Interpreter) ReflectStatus(ctx context.Context, obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	_, res, err := i.interpret(ctx, &attributes{op: configv1alpha1.InterpreterOperationInterpretStatus, object: obj})
	if err != nil {
		return nil, err
	}
	return res.RawStatus, nil
}

// InterpretHealth returns the webhook's healthy answer.
func (i *Interpreter) InterpretHealth(ctx context.Context, obj *unstructured.Unstructured) (bool, error) {
	_, res, err := i.interpret(ctx, &attributes{op: configv1alpha1.InterpreterOperationInterpretHealth, object: obj})
	if err != nil {
		return false, err
	}
	return *res.Healthy, nil
}

// GetDependencies returns the webhook's dependencies, validated.
func (i *Interpreter) GetDependencies(ctx context.Context, obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	_, res, err := i.interpret(ctx, &attributes{op: configv1alpha1.InterpreterOperationInterpretDependency, object: obj})
	if err != nil {
		return nil, err
	}
	return res.Dependencies, nil
}

// patchCall calls a patching operation and applies the returned patch; a
// patch that does not apply fails the call, naming the webhook.
func (i *Interpreter) patchCall(ctx context.Context, a *attributes) (*unstructured.Unstructured, error) {
	h, res, err := i.interpret(ctx, a)
	if err != nil {
		return nil, err
	}
	out, err := applyPatch(a.object, a.objectJSON, res)
	if err != nil {
		return nil, callError(h.uid, err)
	}
	return out, nil
}
