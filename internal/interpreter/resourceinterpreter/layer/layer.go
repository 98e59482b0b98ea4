// Package layer defines the contract between the resource interpreter facade
// and its layers (webhook, Lua customization, built-in, native), so that the
// layers, in their own packages, need not import the facade.
package layer

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Layer is one source of interpretation: customized webhooks, Lua
// customizations (the user's or Propel's built-in ones) or the native Go
// interpreters. The facade asks each layer, in precedence order, whether it
// has a hook for (GVK, operation); the first that does answers alone.
//
// Layers live in sub-packages and satisfy this interface structurally.
type Layer interface {
	// Name labels metrics and errors: "webhook", "customization",
	// "builtin", "native".
	Name() string
	// HookEnabled reports whether this layer answers op for gvk. A layer
	// whose configuration is not loaded yet returns ErrNotReady.
	HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) (bool, error)

	Operations
}

// Operations are the eight interpreter operations, as a layer answers them
// and as the facade over the layers offers them: the one declaration of
// their signatures.
type Operations interface {
	GetReplicas(ctx context.Context, obj *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error)
	ReviseReplica(ctx context.Context, obj *unstructured.Unstructured, replicas int64) (*unstructured.Unstructured, error)
	GetComponents(ctx context.Context, obj *unstructured.Unstructured) ([]workv1alpha2.Component, error)
	Retain(ctx context.Context, desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error)
	AggregateStatus(ctx context.Context, obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error)
	ReflectStatus(ctx context.Context, obj *unstructured.Unstructured) (*runtime.RawExtension, error)
	InterpretHealth(ctx context.Context, obj *unstructured.Unstructured) (bool, error)
	GetDependencies(ctx context.Context, obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error)
}

// ErrNotReady is returned while a layer's configuration cache has not
// synced. It is retryable: callers requeue instead of falling through to a
// lower layer, which could, for example, drop fields a webhook would retain.
var ErrNotReady = errors.New("resource interpreter is not ready: configuration cache not synced")

// Versioned is implemented by layers whose hooks come from a configuration
// published as a whole (the webhook configurations, the Lua
// customizations) or fixed at construction (the native interpreters).
// ConfigVersion changes whenever HookEnabled could change its answer for
// some (GVK, operation), so the facade may reuse the layer it picked for
// a (GVK, operation) while every layer's version is the one it picked
// under. A layer that does not implement it is asked on every call.
type Versioned interface {
	ConfigVersion() uint64
}
