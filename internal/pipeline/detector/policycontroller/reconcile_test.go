package policycontroller

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// A policy whose permanent-id label was lost (the object was replaced)
// gets back the id its bindings carry, whichever binding kind holds them.
func TestEnsureIdentityRecoversPreviousID(t *testing.T) {
	claimed := func(b workv1alpha2.Binding, labels, annotations map[string]string) client.Object {
		b.SetLabels(labels)
		b.SetAnnotations(annotations)
		return b
	}
	cases := []struct {
		name    string
		policy  client.Object
		binding client.Object
	}{{
		// Only cluster-scoped templates (say Namespaces or ClusterRoles)
		// are claimed: the id lives on ClusterResourceBindings only.
		name:   "ClusterPropagationPolicy claiming cluster-scoped templates",
		policy: &policyv1alpha1.ClusterPropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: "cluster-roles"}},
		binding: claimed(&workv1alpha2.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "admin-clusterrole"}},
			map[string]string{names.ClusterPropagationPolicyPermanentIDLabel: "cpp-id"},
			map[string]string{names.ClusterPropagationPolicyNameAnnotation: "cluster-roles"}),
	}, {
		name:   "ClusterPropagationPolicy claiming namespaced templates",
		policy: &policyv1alpha1.ClusterPropagationPolicy{ObjectMeta: metav1.ObjectMeta{Name: "cluster-roles"}},
		binding: claimed(&workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "nginx-deployment"}},
			map[string]string{names.ClusterPropagationPolicyPermanentIDLabel: "cpp-id"},
			map[string]string{names.ClusterPropagationPolicyNameAnnotation: "cluster-roles"}),
	}, {
		name:   "PropagationPolicy",
		policy: &policyv1alpha1.PropagationPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "nginx"}},
		binding: claimed(&workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "nginx-deployment"}},
			map[string]string{names.PropagationPolicyPermanentIDLabel: "pp-id"},
			map[string]string{names.PropagationPolicyNamespaceAnnotation: "apps", names.PropagationPolicyNameAnnotation: "nginx"}),
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			cl := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(c.policy, c.binding).Build()
			r := &Reconciler{Client: cl}
			obj := c.policy.DeepCopyObject().(client.Object)
			if err := cl.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
				t.Fatal(err)
			}
			p := policyindex.FromObject(obj)
			if err := r.ensureIdentity(ctx, obj, p); err != nil {
				t.Fatal(err)
			}
			if err := cl.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
				t.Fatal(err)
			}
			label := names.PropagationPolicyPermanentIDLabel
			if p.Cluster {
				label = names.ClusterPropagationPolicyPermanentIDLabel
			}
			want := c.binding.GetLabels()[label]
			if got := obj.GetLabels()[label]; got != want {
				t.Errorf("permanent id after replacement = %q, want the bindings' %q", got, want)
			}
		})
	}
}
