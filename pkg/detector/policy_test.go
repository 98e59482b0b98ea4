package detector

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

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

func pp(ns, name string, prio *int32, selectors ...policyv1alpha1.ResourceSelector) *policy {
	return &policy{namespace: ns, name: name, id: name + "-id", spec: &policyv1alpha1.PropagationSpec{ResourceSelectors: selectors, Priority: prio}}
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
		{"name", sel("nginx", nil), priorityMatchName},
		{"name ignores labelSelector", sel("nginx", map[string]string{"app": "other"}), priorityMatchName},
		{"other name", sel("redis", map[string]string{"app": "nginx"}), priorityMisMatch},
		{"labels", sel("", map[string]string{"app": "nginx"}), priorityMatchLabelSelector},
		{"labels mismatch", sel("", map[string]string{"app": "redis"}), priorityMisMatch},
		{"all", sel("", nil), priorityMatchAll},
		{"kind", policyv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "StatefulSet"}, priorityMisMatch},
		{"apiVersion", policyv1alpha1.ResourceSelector{APIVersion: "apps/v1beta1", Kind: "Deployment"}, priorityMisMatch},
		{"namespace", policyv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "prod"}, priorityMisMatch},
		{"invalid selector", policyv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment", LabelSelector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}}, priorityMisMatch},
	}
	// Matching reads the cached form of a template as it reads the decoded one.
	for _, form := range []selectable{obj, cachedCopy(t, obj)} {
		for _, c := range cases {
			if got := selectorPriority(&c.s, form); got != c.want {
				t.Errorf("%T %s: priority %d, want %d", form, c.name, got, c.want)
			}
		}
	}
	// A PropagationPolicy selects only its own namespace when the selector has none.
	if got := pp("other", "p", nil, sel("", nil)).implicitPriority(obj); got != priorityMisMatch {
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
	deleting.deleting = true

	cases := []struct {
		candidates []*policy
		want       string
	}{
		{[]*policy{all, byLabel}, "b-label"},
		{[]*policy{all, byLabel, byName}, "c-name"},
		{[]*policy{byName, explicit}, "d-all-prio"},
		{[]*policy{all, sameAsAll}, "0-all"},
		{[]*policy{deleting, all}, "a-all"},
		{[]*policy{pp("default", "x", nil, sel("redis", nil))}, ""},
	}
	for i, c := range cases {
		got := bestPolicy(c.candidates, obj)
		name := ""
		if got != nil {
			name = got.name
		}
		if name != c.want {
			t.Errorf("case %d: best %q, want %q", i, name, c.want)
		}
	}
}

// TestPolicyIndexOnlyReturnsPoliciesOfTheKind checks that matching does not
// look at unrelated policies: candidates come from the GVK index.
func TestPolicyIndexOnlyReturnsPoliciesOfTheKind(t *testing.T) {
	ix := newPolicyIndex()
	for i := range 1000 {
		ix.upsert(&policy{namespace: "default", name: fmt.Sprintf("cm-%d", i), spec: &policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "v1", Kind: "ConfigMap"}}}})
	}
	target := pp("default", "deploy", nil, sel("", nil))
	ix.upsert(target)
	ix.upsert(pp("prod", "deploy-prod", nil, sel("", nil)))
	got := ix.candidates(deployment("default", "nginx", nil), true)
	if len(got) != 1 || got[0] != target {
		t.Fatalf("candidates = %d policies, want only %s", len(got), target.key())
	}
	ix.remove(target.key())
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
	ix := newPolicyIndex()
	for i := range 1000 {
		ix.upsert(&policy{namespace: "default", name: fmt.Sprintf("cm-%d", i), spec: &policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "v1", Kind: "ConfigMap"}}}})
	}
	ix.upsert(pp("default", "deploy", nil, sel("nginx", nil)))
	obj := cachedCopy(b, deployment("default", "nginx", nil)) // templates are matched in their cached form
	b.ReportAllocs()
	for b.Loop() {
		if bestPolicy(ix.candidates(obj, true), obj) == nil {
			b.Fatal("no match")
		}
	}
}

func TestSkipList(t *testing.T) {
	s, err := newSkipList("apps/v1/StatefulSet,DaemonSet; batch/v1 ;v1/Secret;example.io")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[schema.GroupVersionKind]bool{
		{Group: "apps", Version: "v1", Kind: "StatefulSet"}:           true,
		{Group: "apps", Version: "v1", Kind: "DaemonSet"}:             true,
		{Group: "apps", Version: "v1", Kind: "Deployment"}:            false,
		{Group: "batch", Version: "v1", Kind: "Job"}:                  true,
		{Version: "v1", Kind: "Secret"}:                               true,
		{Version: "v1", Kind: "ConfigMap"}:                            false,
		{Version: "v1", Kind: "Event"}:                                true,
		{Group: "example.io", Version: "v9", Kind: "Any"}:             true,
		{Group: "policy.karmada.io", Version: "v1alpha1", Kind: "PP"}: true,
		{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}:  true,
	}
	for gvk, want := range cases {
		if got := s.skipped(gvk); got != want {
			t.Errorf("skipped(%s) = %v, want %v", gvk, got, want)
		}
	}
	if _, err := newSkipList("a/b/c/d"); err == nil {
		t.Error("invalid entry accepted")
	}
}

func TestNamespaceFilter(t *testing.T) {
	f, err := newNamespaceFilter([]string{"kube-.*"})
	if err != nil {
		t.Fatal(err)
	}
	cm := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	for ns, want := range map[string]bool{"karmada-system": true, "karmada-cluster": true, "karmada-es-member1": true,
		"kube-public": true, "default": false, "my-kube-ns": false, "": false} {
		if got := f.ignored(cm, ns, "x"); got != want {
			t.Errorf("ignored(%q) = %v, want %v", ns, got, want)
		}
	}
}

func TestWebhookDefaults(t *testing.T) {
	spec := &policyv1alpha1.PropagationSpec{Placement: policyv1alpha1.Placement{
		ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided},
		SpreadConstraints: []policyv1alpha1.SpreadConstraint{{MaxGroups: 2}},
	}}
	got := withWebhookDefaults(spec)
	if got.Placement.ReplicaScheduling.ReplicaDivisionPreference != policyv1alpha1.ReplicaDivisionPreferenceWeighted {
		t.Errorf("Divided without preference not defaulted to Weighted")
	}
	if sc := got.Placement.SpreadConstraints[0]; sc.SpreadByField != policyv1alpha1.SpreadByFieldCluster || sc.MinGroups != 1 || sc.MaxGroups != 2 {
		t.Errorf("spread constraint defaults: %+v", sc)
	}
	if spec.Placement.ReplicaScheduling.ReplicaDivisionPreference != "" {
		t.Error("defaulting mutated the policy")
	}
}
