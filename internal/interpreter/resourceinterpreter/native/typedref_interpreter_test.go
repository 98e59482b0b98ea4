package native_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// The kinds the native interpreters know, by exact GroupVersionKind.
var (
	deploymentGVK    = appsv1.SchemeGroupVersion.WithKind("Deployment")
	replicaSetGVK    = appsv1.SchemeGroupVersion.WithKind("ReplicaSet")
	statefulSetGVK   = appsv1.SchemeGroupVersion.WithKind("StatefulSet")
	daemonSetGVK     = appsv1.SchemeGroupVersion.WithKind("DaemonSet")
	jobGVK           = batchv1.SchemeGroupVersion.WithKind("Job")
	cronJobGVK       = batchv1.SchemeGroupVersion.WithKind("CronJob")
	podGVK           = corev1.SchemeGroupVersion.WithKind("Pod")
	serviceGVK       = corev1.SchemeGroupVersion.WithKind("Service")
	pvcGVK           = corev1.SchemeGroupVersion.WithKind(kindPersistentVolumeClaim)
	pvGVK            = corev1.SchemeGroupVersion.WithKind("PersistentVolume")
	ingressGVK       = networkingv1.SchemeGroupVersion.WithKind("Ingress")
	pdbGVK           = policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget")
	hpaGVK           = autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler")
	serviceImportGVK = schema.GroupVersionKind{Group: "multicluster.x-k8s.io", Version: "v1alpha1", Kind: "ServiceImport"}
)

// Handler signatures, one per operation.
type (
	// replicaFunc returns the replica count and the pod template replicas
	// are created from (nil when there is none).
	replicaFunc    func(obj *unstructured.Unstructured) (int32, *corev1.PodTemplateSpec, error)
	aggregateFunc  func(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error)
	reflectFunc    func(obj *unstructured.Unstructured) (*runtime.RawExtension, error)
	healthFunc     func(obj *unstructured.Unstructured) (bool, error)
	dependencyFunc func(obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error)
)

// ErrNoInterpreter is wrapped by the error of an operation the native layer
// has no handler for, e.g. `default Retain interpreter for "apps/v1,
// Kind=DaemonSet" not found`.
var ErrNoInterpreter = errors.New("not found")

// Interpreter is the typed reference of the native layer: the previous,
// typed implementation of the operations that were rewritten on
// unstructured maps (replicas, AggregateStatus, ReflectStatus, health,
// dependencies). Retain, ReviseReplica and Prune were not rewritten, so
// they have no reference here: comparing production code with a copy of
// itself would prove nothing. Their unit tests (retain_test.go,
// replica_test.go, prune_test.go) and, for Prune's one rewritten rule,
// checkPruneJobSelector guard them.
type Interpreter struct {
	replicas     map[schema.GroupVersionKind]replicaFunc
	aggregators  map[schema.GroupVersionKind]aggregateFunc
	reflectors   map[schema.GroupVersionKind]reflectFunc
	healthChecks map[schema.GroupVersionKind]healthFunc
	dependencies map[schema.GroupVersionKind]dependencyFunc

	// priorityClassName copies the pod's priorityClassName into replica
	// requirements (Karmada's ResourceQuotaEstimate gate).
	priorityClassName bool
}

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
	i := &Interpreter{
		replicas:     replicaHandlers(),
		aggregators:  aggregateHandlers(),
		reflectors:   reflectHandlers(),
		healthChecks: healthHandlers(),
		dependencies: dependencyHandlers(),
	}
	for _, opt := range opts {
		opt(i)
	}
	return i
}

// Name implements layer.Layer.
func (i *Interpreter) Name() string { return "native" }

// HookEnabled reports whether a native handler exists for op and the exact
// gvk. InterpretStatus is always enabled (whole-status fallback);
// InterpretComponent, Prune and "*" never are. It never fails.
func (i *Interpreter) HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) (bool, error) {
	var ok bool
	switch op {
	case configv1alpha1.InterpreterOperationInterpretReplica:
		_, ok = i.replicas[gvk]
	case configv1alpha1.InterpreterOperationAggregateStatus:
		_, ok = i.aggregators[gvk]
	case configv1alpha1.InterpreterOperationInterpretStatus:
		ok = true
	case configv1alpha1.InterpreterOperationInterpretHealth:
		_, ok = i.healthChecks[gvk]
	case configv1alpha1.InterpreterOperationInterpretDependency:
		_, ok = i.dependencies[gvk]
	}
	return ok, nil
}

// notFound is Karmada's error for a kind without a native handler.
func notFound(op configv1alpha1.InterpreterOperation, gvk schema.GroupVersionKind) error {
	return fmt.Errorf("default %s interpreter for %q %w", op, gvk, ErrNoInterpreter)
}

// GetReplicas implements layer.Layer. For a kind without a handler it
// returns 0, an empty non-nil requirements struct and an error, as Karmada
// does.
func (i *Interpreter) GetReplicas(_ context.Context, obj *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error) {
	handler, ok := i.replicas[obj.GroupVersionKind()]
	if !ok {
		return 0, &workv1alpha2.ReplicaRequirements{}, notFound(configv1alpha1.InterpreterOperationInterpretReplica, obj.GroupVersionKind())
	}
	replicas, tmpl, err := handler(obj)
	if err != nil {
		return 0, nil, fmt.Errorf("interpret replicas of %s: %w", describe(obj), err)
	}
	reqs := native.AccuratePodRequirements(tmpl)
	if reqs != nil && i.priorityClassName {
		reqs.PriorityClassName = tmpl.Spec.PriorityClassName
	}
	return replicas, reqs, nil
}

// GetComponents implements layer.Layer. There is no native component
// interpreter: HookEnabled is false and this always fails.
func (i *Interpreter) GetComponents(_ context.Context, obj *unstructured.Unstructured) ([]workv1alpha2.Component, error) {
	return nil, fmt.Errorf("default %s interpreter for %q: no plan to implement this method yet",
		configv1alpha1.InterpreterOperationInterpretComponent, obj.GroupVersionKind())
}

// AggregateStatus implements layer.Layer. When the status does not change
// it returns obj itself.
func (i *Interpreter) AggregateStatus(_ context.Context, obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	handler, ok := i.aggregators[obj.GroupVersionKind()]
	if !ok {
		return nil, notFound(configv1alpha1.InterpreterOperationAggregateStatus, obj.GroupVersionKind())
	}
	out, err := handler(obj, items)
	if err != nil {
		return nil, fmt.Errorf("aggregate status of %s: %w", describe(obj), err)
	}
	return out, nil
}

// ReflectStatus implements layer.Layer. Kinds without a dedicated handler
// reflect their whole .status; nil means there is nothing to collect.
func (i *Interpreter) ReflectStatus(_ context.Context, obj *unstructured.Unstructured) (*runtime.RawExtension, error) {
	handler, ok := i.reflectors[obj.GroupVersionKind()]
	if !ok {
		handler = reflectWholeStatus
	}
	out, err := handler(obj)
	if err != nil {
		return nil, fmt.Errorf("reflect status of %s: %w", describe(obj), err)
	}
	return out, nil
}

// InterpretHealth implements layer.Layer.
func (i *Interpreter) InterpretHealth(_ context.Context, obj *unstructured.Unstructured) (bool, error) {
	handler, ok := i.healthChecks[obj.GroupVersionKind()]
	if !ok {
		return false, notFound(configv1alpha1.InterpreterOperationInterpretHealth, obj.GroupVersionKind())
	}
	healthy, err := handler(obj)
	if err != nil {
		return false, fmt.Errorf("interpret health of %s: %w", describe(obj), err)
	}
	return healthy, nil
}

// GetDependencies implements layer.Layer. The result is validated
// (ValidateDependencies) like any layer's.
func (i *Interpreter) GetDependencies(_ context.Context, obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	handler, ok := i.dependencies[obj.GroupVersionKind()]
	if !ok {
		return nil, fmt.Errorf("default interpreter for operation %s %w", configv1alpha1.InterpreterOperationInterpretDependency, ErrNoInterpreter)
	}
	deps, err := handler(obj)
	if err == nil {
		err = ValidateDependencies(deps)
	}
	if err != nil {
		return nil, fmt.Errorf("get dependencies of %s: %w", describe(obj), err)
	}
	return deps, nil
}
