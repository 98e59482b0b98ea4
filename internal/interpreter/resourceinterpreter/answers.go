package resourceinterpreter

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// The facade checks every layer's answers the same way, so that no layer
// (a webhook, a user's script, a built-in script) can make a controller act
// on another object than the one it asked about.

// ErrChangedIdentity is wrapped by the error of a ReviseReplica or Retain
// answer that is not the object it was asked to revise or retain.
var ErrChangedIdentity = errors.New("the answer changes the object's identity")

// ErrDependencyNamespace is wrapped by the error of a GetDependencies answer
// naming an object outside a namespaced workload's namespace.
var ErrDependencyNamespace = errors.New("dependencies of a namespaced object must be in its namespace")

// checkSameObject rejects an answer whose apiVersion, kind, namespace or
// name differ from the object asked about: applied, it would create or
// overwrite a different object in the member cluster.
func checkSameObject(asked, answer *unstructured.Unstructured) error {
	if answer == nil {
		return errors.New("the answer is no object")
	}
	for _, f := range []struct{ field, want, got string }{
		{"apiVersion", asked.GetAPIVersion(), answer.GetAPIVersion()},
		{"kind", asked.GetKind(), answer.GetKind()},
		{"metadata.namespace", asked.GetNamespace(), answer.GetNamespace()},
		{"metadata.name", asked.GetName(), answer.GetName()},
	} {
		if f.want != f.got {
			return fmt.Errorf("%w: %s is %q, want %q", ErrChangedIdentity, f.field, f.got, f.want)
		}
	}
	return nil
}

// checkSpecReplicas rejects a revised object whose spec.replicas is a
// number that is not a valid replica count. Kinds keep replicas elsewhere
// too; spec.replicas is the field almost all of them use, and a value there
// that is not an int32 would be coerced or rejected far from its cause.
func checkSpecReplicas(obj *unstructured.Unstructured) error {
	spec, ok := obj.Object["spec"].(map[string]any)
	if !ok {
		return nil
	}
	var err error
	switch v := spec["replicas"].(type) {
	case int64:
		_, err = layer.ReplicasFromInt64(v)
	case int32:
		_, err = layer.ReplicasFromInt64(int64(v))
	case int:
		_, err = layer.ReplicasFromInt64(int64(v))
	case float64:
		_, err = layer.ReplicasFromFloat64(v)
	case float32:
		_, err = layer.ReplicasFromFloat64(float64(v))
	}
	if err != nil {
		return fmt.Errorf("answered spec.replicas %w", err)
	}
	return nil
}

// checkReplicas rejects a replica count that is not valid and
// requirements with a negative resource request: charged to a binding, a
// negative request would lower a FederatedResourceQuota's usage.
func checkReplicas(n int32, reqs *workv1alpha2.ReplicaRequirements) error {
	if _, err := layer.ReplicasFromInt64(int64(n)); err != nil {
		return fmt.Errorf("answered replicas %w", err)
	}
	if err := layer.CheckRequirements(reqs); err != nil {
		return fmt.Errorf("answered %w", err)
	}
	return nil
}

// checkDependencies rejects more than layer.MaxDependencies references
// (the layers validate their own answers, but one layer may unite several:
// the Lua customizations of a kind) and dependencies of a namespaced
// object that name another namespace (an empty namespace means the
// object's own). The dependencies distributor creates their bindings in
// the workload's namespace, so a dependency elsewhere would let anyone who
// may create a workload propagate, say, a Secret of kube-system.
func checkDependencies(obj *unstructured.Unstructured, deps []configv1alpha1.DependentObjectReference) error {
	if err := layer.CheckDependencyCount(len(deps)); err != nil {
		return err
	}
	ns := obj.GetNamespace()
	if ns == "" {
		return nil
	}
	for i := range deps {
		if d := deps[i].Namespace; d != "" && d != ns {
			return fmt.Errorf("%w: dependencies[%d] (%s %s) is in namespace %q, not %q", ErrDependencyNamespace, i, deps[i].Kind, deps[i].Name, d, ns)
		}
	}
	return nil
}
