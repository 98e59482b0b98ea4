package hpascaletargetmarker

import (
	"context"
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
)

func label(t *testing.T, add bool, labels map[string]string) (string, bool) {
	t.Helper()
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", Labels: labels}}
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(d).Build()
	m := mark{Namespace: "ns", APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Add: add}
	if _, err := New(Deps{Client: c}).Reconcile(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	got := &appsv1.Deployment{}
	if err := c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "web"}, got); err != nil {
		t.Fatal(err)
	}
	v, ok := got.Labels[names.RetainReplicasLabel]
	return v, ok
}

func TestMarkAddsAndRemovesRetainReplicas(t *testing.T) {
	if v, _ := label(t, true, nil); v != "true" {
		t.Errorf("added label = %q, want true", v)
	}
	if v, _ := label(t, true, map[string]string{names.RetainReplicasLabel: "false"}); v != "true" {
		t.Errorf("label %q not corrected to true", v)
	}
	if _, ok := label(t, false, map[string]string{names.RetainReplicasLabel: "true", "app": "web"}); ok {
		t.Error("label kept after the HPA left")
	}
}

// TestMissingTargetAndBadAPIVersion: a target that does not exist needs
// nothing; an unparsable apiVersion is a terminal error naming it.
func TestMissingTargetAndBadAPIVersion(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).Build()
	r := New(Deps{Client: c})
	if _, err := r.Reconcile(context.Background(), mark{Namespace: "ns", APIVersion: "apps/v1", Kind: "Deployment", Name: "gone", Add: true}); err != nil {
		t.Errorf("missing target: %v", err)
	}
	_, err := r.Reconcile(context.Background(), mark{Namespace: "ns", APIVersion: "a/b/c", Kind: "Deployment", Name: "web", Add: true})
	if !errors.Is(err, reconcile.TerminalError(nil)) || !strings.Contains(err.Error(), "a/b/c") {
		t.Errorf("bad apiVersion: %v, want a terminal error", err)
	}
}
