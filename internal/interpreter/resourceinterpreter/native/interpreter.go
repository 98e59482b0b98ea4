package native

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// The kinds the native interpreters know, by exact GroupVersionKind.
var (
	deploymentGVK     = appsv1.SchemeGroupVersion.WithKind("Deployment")
	replicaSetGVK     = appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
	statefulSetGVK    = appsv1.SchemeGroupVersion.WithKind("StatefulSet")
	daemonSetGVK      = appsv1.SchemeGroupVersion.WithKind("DaemonSet")
	jobGVK            = batchv1.SchemeGroupVersion.WithKind("Job")
	cronJobGVK        = batchv1.SchemeGroupVersion.WithKind("CronJob")
	podGVK            = corev1.SchemeGroupVersion.WithKind("Pod")
	serviceGVK        = corev1.SchemeGroupVersion.WithKind("Service")
	serviceAccountGVK = corev1.SchemeGroupVersion.WithKind(kindServiceAccount)
	secretGVK         = corev1.SchemeGroupVersion.WithKind(kindSecret)
	pvcGVK            = corev1.SchemeGroupVersion.WithKind(kindPersistentVolumeClaim)
	pvGVK             = corev1.SchemeGroupVersion.WithKind("PersistentVolume")
	ingressGVK        = networkingv1.SchemeGroupVersion.WithKind("Ingress")
	pdbGVK            = policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget")
	hpaGVK            = autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler")
	serviceImportGVK  = schema.GroupVersionKind{Group: "multicluster.x-k8s.io", Version: "v1alpha1", Kind: "ServiceImport"}
)

// Handler signatures, one per operation.
type (
	// replicaFunc returns the replica count and the unstructured spec of
	// the pods replicas are created from (nil when empty).
	replicaFunc    func(obj *unstructured.Unstructured) (int32, map[string]interface{}, error)
	reviseFunc     func(obj *unstructured.Unstructured, replicas int64) (*unstructured.Unstructured, error)
	retainFunc     func(desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error)
	aggregateFunc  func(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error)
	reflectFunc    func(obj *unstructured.Unstructured) (*runtime.RawExtension, error)
	healthFunc     func(obj *unstructured.Unstructured) (bool, error)
	dependencyFunc func(obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error)
)

// ErrNoInterpreter is wrapped by the error of an operation the native layer
// has no handler for, e.g. `default Retain interpreter for "apps/v1,
// Kind=DaemonSet" not found`.
var ErrNoInterpreter = errors.New("not found")

// Interpreter is the native layer. It is immutable after New and safe for
// concurrent use.
type Interpreter struct {
	kinds map[schema.GroupVersionKind]kindHandlers

	// priorityClassName copies the pod's priorityClassName into replica
	// requirements (Karmada's ResourceQuotaEstimate gate).
	priorityClassName bool
}

var (
	_ layer.Layer     = (*Interpreter)(nil)
	_ layer.Versioned = (*Interpreter)(nil)
)

// Option configures an Interpreter.
type Option func(*Interpreter)

// WithPriorityClassName makes GetReplicas report the pod's
// priorityClassName in the replica requirements, as Karmada does under the
// ResourceQuotaEstimate feature gate (alpha, off by default).
func WithPriorityClassName() Option {
	return func(i *Interpreter) { i.priorityClassName = true }
}

// New returns the native layer.
func New(opts ...Option) *Interpreter {
	i := &Interpreter{kinds: kinds()}
	for _, opt := range opts {
		opt(i)
	}
	return i
}

// Name implements layer.Layer.
func (i *Interpreter) Name() string { return "native" }

// ConfigVersion implements layer.Versioned: the handlers are fixed by New.
func (i *Interpreter) ConfigVersion() uint64 { return 0 }

// HookEnabled reports whether a native handler exists for op and the exact
// gvk. InterpretStatus is always enabled (whole-status fallback);
// InterpretComponent, Prune and "*" never are. It never fails.
func (i *Interpreter) HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) (bool, error) {
	k := i.kinds[gvk]
	switch op {
	case configv1alpha1.InterpreterOperationInterpretReplica:
		return k.replicas != nil, nil
	case configv1alpha1.InterpreterOperationReviseReplica:
		return k.revise != nil, nil
	case configv1alpha1.InterpreterOperationRetain:
		return k.retain != nil, nil
	case configv1alpha1.InterpreterOperationAggregateStatus:
		return k.aggregate != nil, nil
	case configv1alpha1.InterpreterOperationInterpretStatus:
		return true, nil
	case configv1alpha1.InterpreterOperationInterpretHealth:
		return k.health != nil, nil
	case configv1alpha1.InterpreterOperationInterpretDependency:
		return k.dependencies != nil, nil
	}
	return false, nil
}

// notFound is Karmada's error for a kind without a native handler.
func notFound(op configv1alpha1.InterpreterOperation, gvk schema.GroupVersionKind) error {
	return fmt.Errorf("default %s interpreter for %q %w", op, gvk, ErrNoInterpreter)
}

// GetReplicas implements layer.Layer. For a kind without a handler it
// returns 0, an empty non-nil requirements struct and an error, as Karmada
// does.
func (i *Interpreter) GetReplicas(_ context.Context, obj *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error) {
	handler := i.kinds[obj.GroupVersionKind()].replicas
	if handler == nil {
		return 0, &workv1alpha2.ReplicaRequirements{}, notFound(configv1alpha1.InterpreterOperationInterpretReplica, obj.GroupVersionKind())
	}
	replicas, podSpec, err := handler(obj)
	var reqs *workv1alpha2.ReplicaRequirements
	if err == nil {
		reqs, err = specRequirements(podSpec, i.priorityClassName)
		err = at(err, podSpecPath(obj)...)
	}
	if err != nil {
		return 0, nil, fmt.Errorf("interpret replicas of %s: %w", describe(obj), err)
	}
	return replicas, reqs, nil
}

// Where the pod spec is in the kinds GetReplicas reads.
var (
	templatePodSpecPath = []string{"spec", "template", "spec"}
	podSpecFieldPath    = []string{"spec"}
)

func podSpecPath(obj *unstructured.Unstructured) []string {
	if obj.GetKind() == podGVK.Kind {
		return podSpecFieldPath
	}
	return templatePodSpecPath
}

// result is a handler's answer, or its error saying what was being done
// (e.g. "retain fields of") to which object.
func result[T any](out T, err error, doing string, obj *unstructured.Unstructured) (T, error) {
	if err != nil {
		var none T
		return none, fmt.Errorf("%s %s: %w", doing, describe(obj), err)
	}
	return out, nil
}

// ReviseReplica implements layer.Layer; it changes obj in place.
func (i *Interpreter) ReviseReplica(_ context.Context, obj *unstructured.Unstructured, replicas int64) (*unstructured.Unstructured, error) {
	if revise := i.kinds[obj.GroupVersionKind()].revise; revise != nil {
		out, err := revise(obj, replicas)
		return result(out, err, "revise replicas of", obj)
	}
	return nil, notFound(configv1alpha1.InterpreterOperationReviseReplica, obj.GroupVersionKind())
}

// GetComponents implements layer.Layer. There is no native component
// interpreter: HookEnabled is false and this always fails.
func (i *Interpreter) GetComponents(_ context.Context, obj *unstructured.Unstructured) ([]workv1alpha2.Component, error) {
	return nil, fmt.Errorf("default %s interpreter for %q: no plan to implement this method yet",
		configv1alpha1.InterpreterOperationInterpretComponent, obj.GroupVersionKind())
}

// Retain implements layer.Layer: it keeps in desired the fields the member
// cluster owns in observed.
func (i *Interpreter) Retain(_ context.Context, desired, observed *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if retain := i.kinds[desired.GroupVersionKind()].retain; retain != nil {
		out, err := retain(desired, observed)
		return result(out, err, "retain fields of", desired)
	}
	return nil, notFound(configv1alpha1.InterpreterOperationRetain, desired.GroupVersionKind())
}

// AggregateStatus implements layer.Layer. When the status does not change
// it returns obj itself.
func (i *Interpreter) AggregateStatus(_ context.Context, obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	if aggregate := i.kinds[obj.GroupVersionKind()].aggregate; aggregate != nil {
		out, err := aggregate(obj, items)
		return result(out, err, "aggregate status of", obj)
	}
	return nil, notFound(configv1alpha1.InterpreterOperationAggregateStatus, obj.GroupVersionKind())
}

// ReflectStatus implements layer.Layer. Kinds without a dedicated handler
// reflect their whole .status; nil means there is nothing to collect.
func (i *Interpreter) ReflectStatus(_ context.Context, obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	reflect := i.kinds[obj.GroupVersionKind()].reflect
	if reflect == nil {
		reflect = reflectWholeStatus
	}
	out, err := reflect(obj)
	return result(out, err, "reflect status of", obj)
}

// InterpretHealth implements layer.Layer.
func (i *Interpreter) InterpretHealth(_ context.Context, obj *unstructured.Unstructured) (bool, error) {
	if health := i.kinds[obj.GroupVersionKind()].health; health != nil {
		healthy, err := health(obj)
		return result(healthy, err, "interpret health of", obj)
	}
	return false, notFound(configv1alpha1.InterpreterOperationInterpretHealth, obj.GroupVersionKind())
}

// GetDependencies implements layer.Layer. The result is validated
// (layer.ValidateDependencies) like any layer's.
func (i *Interpreter) GetDependencies(_ context.Context, obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	dependencies := i.kinds[obj.GroupVersionKind()].dependencies
	if dependencies == nil {
		return nil, fmt.Errorf("default interpreter for operation %s %w", configv1alpha1.InterpreterOperationInterpretDependency, ErrNoInterpreter)
	}
	deps, err := dependencies(obj)
	if err == nil {
		err = layer.ValidateDependencies(deps)
	}
	return result(deps, err, "get dependencies of", obj)
}
