package native

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// supportMatrix is section 2.10 of the interpreter spec.
var supportMatrix = map[configv1alpha1.InterpreterOperation][]schema.GroupVersionKind{
	configv1alpha1.InterpreterOperationInterpretReplica: {deploymentGVK, replicaSetGVK, statefulSetGVK, jobGVK, podGVK},
	configv1alpha1.InterpreterOperationReviseReplica:    {deploymentGVK, replicaSetGVK, statefulSetGVK, jobGVK},
	configv1alpha1.InterpreterOperationRetain: {deploymentGVK, podGVK, serviceGVK, serviceAccountGVK, pvcGVK, pvGVK,
		secretGVK, jobGVK},
	configv1alpha1.InterpreterOperationAggregateStatus: {deploymentGVK, replicaSetGVK, daemonSetGVK, statefulSetGVK,
		serviceGVK, podGVK, pvGVK, pvcGVK, ingressGVK, jobGVK, cronJobGVK, pdbGVK, hpaGVK},
	configv1alpha1.InterpreterOperationInterpretHealth: {deploymentGVK, statefulSetGVK, replicaSetGVK, daemonSetGVK,
		serviceGVK, pvcGVK, podGVK, ingressGVK, pdbGVK},
	configv1alpha1.InterpreterOperationInterpretDependency: {deploymentGVK, replicaSetGVK, daemonSetGVK, statefulSetGVK,
		jobGVK, cronJobGVK, podGVK, ingressGVK, serviceImportGVK},
	configv1alpha1.InterpreterOperationInterpretComponent: nil,
	configv1alpha1.InterpreterOperationPrune:              nil,
	configv1alpha1.InterpreterOperationAll:                nil,
}

// otherGVKs are never handled: same kinds in other versions, and unknowns.
var otherGVKs = []schema.GroupVersionKind{
	{Group: "extensions", Version: "v1beta1", Kind: "Deployment"},
	{Group: "apps", Version: "v1beta1", Kind: "Deployment"},
	{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"},
	{Group: "policy", Version: "v1beta1", Kind: "PodDisruptionBudget"},
	{Group: "batch", Version: "v1beta1", Kind: "CronJob"},
	{Version: "v1", Kind: "ConfigMap"},
	{Group: "example.io", Version: "v1", Kind: "Widget"},
}

func allGVKs() []schema.GroupVersionKind {
	return append([]schema.GroupVersionKind{deploymentGVK, replicaSetGVK, statefulSetGVK, daemonSetGVK, jobGVK,
		cronJobGVK, podGVK, serviceGVK, serviceAccountGVK, secretGVK, pvcGVK, pvGVK, ingressGVK, pdbGVK, hpaGVK,
		serviceImportGVK}, otherGVKs...)
}

func TestHookEnabledMatchesSupportMatrix(t *testing.T) {
	n := New()
	for op, kinds := range supportMatrix {
		for _, gvk := range allGVKs() {
			want := false
			for _, k := range kinds {
				want = want || k == gvk
			}
			got, err := n.HookEnabled(gvk, op)
			if err != nil {
				t.Fatalf("HookEnabled(%v, %s) error: %v", gvk, op, err)
			}
			if got != want {
				t.Errorf("HookEnabled(%v, %s) = %v, want %v", gvk, op, got, want)
			}
		}
	}
	for _, gvk := range allGVKs() {
		if ok, err := n.HookEnabled(gvk, configv1alpha1.InterpreterOperationInterpretStatus); !ok || err != nil {
			t.Errorf("InterpretStatus must always be enabled, got %v, %v for %v", ok, err, gvk)
		}
	}
}

func TestName(t *testing.T) {
	if got := New().Name(); got != "native" {
		t.Fatalf("Name() = %q", got)
	}
}

func TestMissingHandlerErrors(t *testing.T) {
	n := New()
	o := obj(t, "apiVersion: apps/v1beta1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec: {replicas: 2}")
	replicas, reqs, err := n.GetReplicas(ctx, o)
	if replicas != 0 || reqs == nil || reqs.NodeClaim != nil || reqs.ResourceRequest != nil {
		t.Errorf("GetReplicas: got %d, %+v; want 0 and an empty non-nil struct", replicas, reqs)
	}
	checks := []struct {
		op  string
		err error
		msg string
	}{
		{"GetReplicas", err, `default InterpretReplica interpreter for "apps/v1beta1, Kind=Deployment" not found`},
		{"ReviseReplica", second(n.ReviseReplica(ctx, o, 3)), `default ReviseReplica interpreter for "apps/v1beta1, Kind=Deployment" not found`},
		{"Retain", second(n.Retain(ctx, o, o)), `default Retain interpreter for "apps/v1beta1, Kind=Deployment" not found`},
		{"AggregateStatus", second(n.AggregateStatus(ctx, o, nil)), `default AggregateStatus interpreter for "apps/v1beta1, Kind=Deployment" not found`},
		{"InterpretHealth", second(n.InterpretHealth(ctx, o)), `default InterpretHealth interpreter for "apps/v1beta1, Kind=Deployment" not found`},
		{"GetDependencies", second(n.GetDependencies(ctx, o)), `default interpreter for operation InterpretDependency not found`},
	}
	for _, c := range checks {
		if c.err == nil || c.err.Error() != c.msg {
			t.Errorf("%s: error %v, want %q", c.op, c.err, c.msg)
		}
		if !errors.Is(c.err, ErrNoInterpreter) {
			t.Errorf("%s: error does not wrap ErrNoInterpreter", c.op)
		}
	}
	core := obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}")
	if _, err := n.InterpretHealth(ctx, core); err == nil || err.Error() != `default InterpretHealth interpreter for "/v1, Kind=ConfigMap" not found` {
		t.Errorf("core group rendering: %v", err)
	}
}

func TestGetComponentsIsNotSupported(t *testing.T) {
	n := New()
	d := obj(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}")
	if ok, _ := n.HookEnabled(deploymentGVK, configv1alpha1.InterpreterOperationInterpretComponent); ok {
		t.Fatal("InterpretComponent must not be enabled")
	}
	comps, err := n.GetComponents(ctx, d)
	if err == nil || comps != nil || !strings.Contains(err.Error(), "no plan to implement") {
		t.Fatalf("GetComponents = %v, %v", comps, err)
	}
}

func TestErrorsNameTheObject(t *testing.T) {
	n := New()
	d := obj(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: prod}\nspec: {replicas: three}")
	_, _, err := n.GetReplicas(ctx, d)
	if err == nil || !strings.Contains(err.Error(), "Deployment prod/web") {
		t.Fatalf("error %v does not name the object", err)
	}
}

func second[T any](_ T, err error) error { return err }
