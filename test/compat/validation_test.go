package compat

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// TestSchemaRejectsBadInput checks that bad manifests get Karmada's answer
// from the CRD schema, with a message naming the field.
func TestSchemaRejectsBadInput(t *testing.T) {
	dyn := dynamic.NewForConfigOrDie(env.ControlPlane.Config)
	pp := schema.GroupVersionResource{Group: "policy.karmada.io", Version: "v1alpha1", Resource: "propagationpolicies"}
	cases := []struct {
		name     string
		manifest string
		want     []string
	}{
		{
			name: "invalid replicaSchedulingType",
			manifest: `
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: bad-enum}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    replicaScheduling: {replicaSchedulingType: Spread}`,
			want: []string{"spec.placement.replicaScheduling.replicaSchedulingType", `Unsupported value: "Spread"`},
		},
		{
			name: "missing resourceSelectors",
			manifest: `
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: no-selectors}
spec:
  placement: {}`,
			want: []string{"spec.resourceSelectors", "Required value"},
		},
		{
			name: "selector without kind",
			manifest: `
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: no-kind}
spec:
  resourceSelectors: [{apiVersion: apps/v1}]`,
			want: []string{"spec.resourceSelectors[0].kind", "Required value"},
		},
		{
			name: "invalid conflictResolution",
			manifest: `
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: bad-conflict}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  conflictResolution: Merge`,
			want: []string{"spec.conflictResolution", `Unsupported value: "Merge"`},
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(c.manifest), &obj.Object); err != nil {
				t.Fatal(err)
			}
			_, err := dyn.Resource(pp).Namespace("default").Create(ctx, obj, metav1.CreateOptions{})
			if err == nil {
				t.Fatalf("%s was accepted, want a schema error", obj.GetName())
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
