package resourceinterpreter

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

var allHooks = map[configv1alpha1.InterpreterOperation]bool{
	configv1alpha1.InterpreterOperationInterpretReplica:    true,
	configv1alpha1.InterpreterOperationReviseReplica:       true,
	configv1alpha1.InterpreterOperationRetain:              true,
	configv1alpha1.InterpreterOperationInterpretDependency: true,
}

// answering returns a facade whose first layer, "customization", answers
// every operation as f says.
func answering(f *fakeLayer) *Interpreter {
	f.name, f.hooks = "customization", allHooks
	return New(f, &fakeLayer{name: "native"})
}

func TestNegativeReplicasRejected(t *testing.T) {
	_, _, err := answering(&fakeLayer{replicas: -1}).GetReplicas(context.Background(), workload())
	want := "customization InterpretReplica of workload.example.io/v1alpha1/Workload default/nginx: answered replicas -1: replicas must be an integer"
	if !errors.Is(err, layer.ErrInvalidReplicas) || err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error = %v, want %q", err, want)
	}
}

// A negative request, charged to a binding, would lower a
// FederatedResourceQuota's usage: every layer's answer is refused.
func TestNegativeRequestsRejected(t *testing.T) {
	reqs := &workv1alpha2.ReplicaRequirements{ResourceRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("-100")}}
	_, _, err := answering(&fakeLayer{replicas: 1, reqs: reqs}).GetReplicas(context.Background(), workload())
	want := "customization InterpretReplica of workload.example.io/v1alpha1/Workload default/nginx: answered resourceRequest.cpu is -100: resource requests must not be negative"
	if !errors.Is(err, layer.ErrNegativeRequest) || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
	comps := []workv1alpha2.Component{{Name: "main", Replicas: 1, ReplicaRequirements: &workv1alpha2.ComponentReplicaRequirements{ResourceRequest: reqs.ResourceRequest}}}
	f := &fakeLayer{comps: comps}
	f.name, f.hooks = "customization", map[configv1alpha1.InterpreterOperation]bool{configv1alpha1.InterpreterOperationInterpretComponent: true}
	_, err = New(f, &fakeLayer{name: "native"}).GetComponents(context.Background(), workload())
	if !errors.Is(err, layer.ErrNegativeRequest) || !strings.Contains(err.Error(), "answered components[0] (main): replicaRequirements.resourceRequest.cpu is -100") {
		t.Fatalf("components: error = %v", err)
	}
	reqs.ResourceRequest[corev1.ResourceCPU] = resource.MustParse("100m")
	if _, got, err := answering(&fakeLayer{replicas: 1, reqs: reqs}).GetReplicas(context.Background(), workload()); err != nil || got == nil {
		t.Fatalf("a positive request: %v, %v", got, err)
	}
}

// One layer may unite the answers of several hooks: the union is capped
// as each answer is.
func TestTooManyDependenciesRejected(t *testing.T) {
	deps := make([]configv1alpha1.DependentObjectReference, layer.MaxDependencies+1)
	for i := range deps {
		deps[i] = configv1alpha1.DependentObjectReference{APIVersion: "v1", Kind: "Secret", Name: "s"}
	}
	_, err := answering(&fakeLayer{deps: deps}).GetDependencies(context.Background(), workload())
	if !errors.Is(err, layer.ErrTooManyDependencies) {
		t.Fatalf("error = %v", err)
	}
	if _, err := answering(&fakeLayer{deps: deps[:layer.MaxDependencies]}).GetDependencies(context.Background(), workload()); err != nil {
		t.Fatalf("%d dependencies: %v", layer.MaxDependencies, err)
	}
}

func TestReviseReplicaDesiredReplicasChecked(t *testing.T) {
	f := &fakeLayer{answer: workload()}
	for _, n := range []int64{-1, math.MaxInt32 + 1} {
		if _, err := answering(f).ReviseReplica(context.Background(), workload(), n); !errors.Is(err, layer.ErrInvalidReplicas) {
			t.Errorf("ReviseReplica(%d) error = %v", n, err)
		}
	}
	if _, err := answering(f).ReviseReplica(context.Background(), workload(), math.MaxInt32); err != nil {
		t.Errorf("ReviseReplica(MaxInt32) error = %v", err)
	}
}

func TestReviseReplicaAnsweredSpecReplicasChecked(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), math.Inf(-1), 1.5, -1.0, int64(-3), float64(math.MaxInt32 + 1), int64(math.MaxInt32 + 1)} {
		answer := workload()
		answer.Object["spec"] = map[string]any{"replicas": v}
		_, err := answering(&fakeLayer{answer: answer}).ReviseReplica(context.Background(), workload(), 2)
		if !errors.Is(err, layer.ErrInvalidReplicas) || !strings.Contains(err.Error(), "answered spec.replicas ") {
			t.Errorf("spec.replicas %v: error = %v", v, err)
		}
	}
	for _, v := range []any{int64(2), float64(2), "2"} {
		answer := workload()
		answer.Object["spec"] = map[string]any{"replicas": v}
		if _, err := answering(&fakeLayer{answer: answer}).ReviseReplica(context.Background(), workload(), 2); err != nil {
			t.Errorf("spec.replicas %#v: error = %v", v, err)
		}
	}
}

func TestAnswersMayNotChangeIdentity(t *testing.T) {
	edits := map[string]func(*unstructured.Unstructured){
		"apiVersion":         func(u *unstructured.Unstructured) { u.SetAPIVersion("v1") },
		"kind":               func(u *unstructured.Unstructured) { u.SetKind("Secret") },
		"metadata.namespace": func(u *unstructured.Unstructured) { u.SetNamespace("kube-system") },
		"metadata.name":      func(u *unstructured.Unstructured) { u.SetName("other") },
	}
	for field, edit := range edits {
		answer := workload()
		edit(answer)
		f := &fakeLayer{answer: answer}
		_, err := answering(f).ReviseReplica(context.Background(), workload(), 1)
		if !errors.Is(err, ErrChangedIdentity) || !strings.Contains(err.Error(), field+" is ") {
			t.Errorf("ReviseReplica changing %s: error = %v", field, err)
		}
		_, err = answering(f).Retain(context.Background(), workload(), workload())
		if !errors.Is(err, ErrChangedIdentity) || !strings.Contains(err.Error(), field+" is ") {
			t.Errorf("Retain changing %s: error = %v", field, err)
		}
	}
	if _, err := answering(&fakeLayer{}).Retain(context.Background(), workload(), workload()); err == nil {
		t.Error("a nil Retain answer is accepted")
	}
	if out, err := answering(&fakeLayer{answer: workload()}).Retain(context.Background(), workload(), workload()); err != nil || out == nil {
		t.Errorf("an unchanged identity is rejected: %v", err)
	}
}

func TestDependenciesOutsideNamespaceRejected(t *testing.T) {
	secret := func(ns string) configv1alpha1.DependentObjectReference {
		return configv1alpha1.DependentObjectReference{APIVersion: "v1", Kind: "Secret", Namespace: ns, Name: "token"}
	}
	_, err := answering(&fakeLayer{deps: []configv1alpha1.DependentObjectReference{secret("default"), secret("kube-system")}}).
		GetDependencies(context.Background(), workload())
	want := `dependencies[1] (Secret token) is in namespace "kube-system", not "default"`
	if !errors.Is(err, ErrDependencyNamespace) || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want %q", err, want)
	}
	deps, err := answering(&fakeLayer{deps: []configv1alpha1.DependentObjectReference{secret("default"), secret("")}}).
		GetDependencies(context.Background(), workload())
	if err != nil || len(deps) != 2 {
		t.Fatalf("same-namespace dependencies: %v, %v", deps, err)
	}
	clusterScoped := workload()
	clusterScoped.SetNamespace("")
	if _, err := answering(&fakeLayer{deps: []configv1alpha1.DependentObjectReference{secret("kube-system")}}).
		GetDependencies(context.Background(), clusterScoped); err != nil {
		t.Fatalf("cluster-scoped workload: %v", err)
	}
}

func TestLayerErrorsAreBounded(t *testing.T) {
	cause := errors.New(strings.Repeat("e", 20<<20))
	_, _, err := answering(&fakeLayer{err: cause}).GetReplicas(context.Background(), workload())
	if len(err.Error()) > 2*boundedtext.DefaultLimit || !boundedtext.IsTruncated(err.Error()) {
		t.Fatalf("error is %d bytes, truncated=%v", len(err.Error()), boundedtext.IsTruncated(err.Error()))
	}
	if !errors.Is(err, cause) {
		t.Fatal("the bounded error lost its cause")
	}
}
