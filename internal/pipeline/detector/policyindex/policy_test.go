package policyindex

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/propel-mc/propel/internal/pipeline/detector/templatecache/templatetest"
	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

func deployment(ns, name string, labels map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apps/v1")
	u.SetKind("Deployment")
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetLabels(labels)
	return u
}

func pp(ns, name string, prio *int32, selectors ...policyv1alpha1.ResourceSelector) *Policy {
	return &Policy{Namespace: ns, Name: name, ID: name + "-id", Spec: &policyv1alpha1.PropagationSpec{ResourceSelectors: selectors, Priority: prio}}
}

func sel(name string, labels map[string]string) policyv1alpha1.ResourceSelector {
	s := policyv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment", Name: name}
	if labels != nil {
		s.LabelSelector = &metav1.LabelSelector{MatchLabels: labels}
	}
	return s
}

func TestImplicitPriority(t *testing.T) {
	obj := deployment("default", "nginx", map[string]string{"app": "nginx"})
	cases := []struct {
		name string
		s    policyv1alpha1.ResourceSelector
		want int
	}{
		{"name", sel("nginx", nil), PriorityMatchName},
		{"name ignores labelSelector", sel("nginx", map[string]string{"app": "other"}), PriorityMatchName},
		{"other name", sel("redis", map[string]string{"app": "nginx"}), PriorityMisMatch},
		{"labels", sel("", map[string]string{"app": "nginx"}), PriorityMatchLabelSelector},
		{"labels mismatch", sel("", map[string]string{"app": "redis"}), PriorityMisMatch},
		{"all", sel("", nil), PriorityMatchAll},
		{"kind", policyv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "StatefulSet"}, PriorityMisMatch},
		{"apiVersion", policyv1alpha1.ResourceSelector{APIVersion: "apps/v1beta1", Kind: "Deployment"}, PriorityMisMatch},
		{"namespace", policyv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "prod"}, PriorityMisMatch},
		{"invalid selector", policyv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment", LabelSelector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}}, PriorityMisMatch},
	}
	// Matching reads the cached form of a template as it reads the decoded one.
	for _, form := range []Selectable{obj, templatetest.Cached(t, obj)} {
		for _, c := range cases {
			if got := SelectorPriority(&c.s, form); got != c.want {
				t.Errorf("%T %s: priority %d, want %d", form, c.name, got, c.want)
			}
		}
	}
	// A PropagationPolicy selects only its own namespace when the selector has none.
	if got := pp("other", "p", nil, sel("", nil)).ImplicitPriority(obj); got != PriorityMisMatch {
		t.Errorf("policy of another namespace matched with %d", got)
	}
}

func TestBestPolicy(t *testing.T) {
	obj := deployment("default", "nginx", map[string]string{"app": "nginx"})
	all := pp("default", "a-all", nil, sel("", nil))
	byLabel := pp("default", "b-label", nil, sel("", map[string]string{"app": "nginx"}))
	byName := pp("default", "c-name", nil, sel("nginx", nil))
	explicit := pp("default", "d-all-prio", ptr.To[int32](5), sel("", nil))
	sameAsAll := pp("default", "0-all", nil, sel("", nil))
	deleting := pp("default", "e-name-deleting", ptr.To[int32](100), sel("nginx", nil))
	deleting.Deleting = true

	cases := []struct {
		candidates []*Policy
		want       string
	}{
		{[]*Policy{all, byLabel}, "b-label"},
		{[]*Policy{all, byLabel, byName}, "c-name"},
		{[]*Policy{byName, explicit}, "d-all-prio"},
		{[]*Policy{all, sameAsAll}, "0-all"},
		{[]*Policy{deleting, all}, "a-all"},
		{[]*Policy{pp("default", "x", nil, sel("redis", nil))}, ""},
	}
	for i, c := range cases {
		got := Best(c.candidates, obj)
		name := ""
		if got != nil {
			name = got.Name
		}
		if name != c.want {
			t.Errorf("case %d: best %q, want %q", i, name, c.want)
		}
	}
}

// TestPolicyIndexOnlyReturnsPoliciesOfTheKind checks that matching does not
// look at unrelated policies: candidates come from the GVK index.
func TestPolicyIndexOnlyReturnsPoliciesOfTheKind(t *testing.T) {
	ix := newKindIndex()
	for i := range 1000 {
		ix.upsert(&Policy{Namespace: "default", Name: fmt.Sprintf("cm-%d", i), Spec: &policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "v1", Kind: "ConfigMap"}}}})
	}
	target := pp("default", "deploy", nil, sel("", nil))
	ix.upsert(target)
	ix.upsert(pp("prod", "deploy-prod", nil, sel("", nil)))
	got := ix.candidates(deployment("default", "nginx", nil), true)
	if len(got) != 1 || got[0] != target {
		t.Fatalf("candidates = %d policies, want only %s", len(got), target.Key())
	}
	ix.remove(target.Key())
	if got := ix.candidates(deployment("default", "nginx", nil), true); len(got) != 0 {
		t.Fatalf("removed policy still indexed: %d", len(got))
	}
	// An update that changes the selected kind moves the policy.
	moved := pp("default", "cm-0", nil, sel("", nil))
	ix.upsert(moved)
	if got := ix.candidates(deployment("default", "nginx", nil), true); len(got) != 1 {
		t.Fatalf("updated policy not re-indexed: %d", len(got))
	}
}

func BenchmarkMatchWith1000UnrelatedPolicies(b *testing.B) {
	ix := New()
	for i := range 1000 {
		ix.Upsert(&Policy{Namespace: "default", Name: fmt.Sprintf("cm-%d", i), Spec: &policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "v1", Kind: "ConfigMap"}}}})
	}
	ix.Upsert(pp("default", "deploy", nil, sel("nginx", nil)))
	obj := templatetest.Cached(b, deployment("default", "nginx", nil)) // templates are matched in their cached form
	b.ReportAllocs()
	for b.Loop() {
		if ix.Match(obj) == nil {
			b.Fatal("no match")
		}
	}
}

func cpp(name string, prio *int32, selectors ...policyv1alpha1.ResourceSelector) *Policy {
	p := pp("", name, prio, selectors...)
	p.Cluster = true
	return p
}

func TestClaimRefOf(t *testing.T) {
	obj := deployment("default", "nginx", nil)
	if _, ok := ClaimRefOf(obj); ok {
		t.Fatal("unclaimed template has a claim")
	}
	SetClaim(obj, cpp("c", nil))
	if ref, ok := ClaimRefOf(obj); !ok || !ref.RefersTo(cpp("c", nil)) || ref.RefersTo(cpp("d", nil)) {
		t.Fatalf("CPP claim read as %+v, %v", ref, ok)
	}
	p := pp("default", "a", nil)
	SetClaim(obj, p)
	if ref, ok := ClaimRefOf(obj); !ok || !ref.RefersTo(p) || ref.RefersTo(pp("other", "a", nil)) {
		t.Fatalf("PP claim read as %+v, %v", ref, ok)
	}
	// Name annotations without the id label are no claim.
	labels := obj.GetLabels()
	delete(labels, names.PropagationPolicyPermanentIDLabel)
	obj.SetLabels(labels)
	if _, ok := ClaimRefOf(obj); ok {
		t.Fatal("claim without id label accepted")
	}
}
