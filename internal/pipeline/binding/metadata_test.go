package binding

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/propel-mc/propel/internal/pipeline/binding/overrides"
	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func TestConflictResolution(t *testing.T) {
	cases := []struct {
		template string
		binding  policyv1alpha1.ConflictResolution
		want     string
	}{
		{"", "", "abort"},
		{"", policyv1alpha1.ConflictAbort, "abort"},
		{"", policyv1alpha1.ConflictOverwrite, "overwrite"},
		{"overwrite", policyv1alpha1.ConflictAbort, "overwrite"},
		{"abort", policyv1alpha1.ConflictOverwrite, "abort"},
		{"Overwrite", policyv1alpha1.ConflictOverwrite, "overwrite"},
		{"bogus", "", "abort"},
	}
	for _, c := range cases {
		tmpl := exampleTemplate(t)
		if c.template != "" {
			a := tmpl.GetAnnotations()
			a[names.ConflictResolutionAnnotation] = c.template
			tmpl.SetAnnotations(a)
		}
		rb := exampleBinding()
		rb.Spec.ConflictResolution = c.binding
		w := renderAll(t, rbKind.wrap(rb), tmpl, nil)["member1"]
		if got := w.Annotations[names.ConflictResolutionAnnotation]; got != c.want {
			t.Errorf("template %q binding %q: Work says %q, want %q", c.template, c.binding, got, c.want)
		}
		if got := manifestOf(t, w).GetAnnotations()[names.ConflictResolutionAnnotation]; got != c.want {
			t.Errorf("template %q binding %q: manifest says %q, want %q", c.template, c.binding, got, c.want)
		}
	}
}

func TestSuspensionAndPreserve(t *testing.T) {
	rb := exampleBinding()
	rb.Spec.Suspension = &workv1alpha2.Suspension{Suspension: policyv1alpha1.Suspension{
		DispatchingOnClusters: &policyv1alpha1.SuspendClusters{ClusterNames: []string{"member2"}},
	}}
	rb.Spec.PreserveResourcesOnDeletion = ptr.To(true)
	works := renderAll(t, rbKind.wrap(rb), exampleTemplate(t), nil)
	if !*works["member2"].Spec.SuspendDispatching || *works["member1"].Spec.SuspendDispatching {
		t.Errorf("suspendDispatching member1 %v member2 %v", *works["member1"].Spec.SuspendDispatching, *works["member2"].Spec.SuspendDispatching)
	}
	if !*works["member1"].Spec.PreserveResourcesOnDeletion {
		t.Error("preserveResourcesOnDeletion not copied")
	}
	rb.Spec.Suspension.Dispatching = ptr.To(true)
	if works := renderAll(t, rbKind.wrap(rb), exampleTemplate(t), nil); !*works["member1"].Spec.SuspendDispatching {
		t.Error("suspension.dispatching does not suspend every cluster")
	}
}

func TestClusterResourceBindingWork(t *testing.T) {
	crb := &workv1alpha2.ClusterResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "system.aggregate-to-edit-clusterrole", Labels: map[string]string{names.ClusterResourceBindingPermanentIDLabel: "C"}},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "system:aggregate-to-edit"},
			Clusters: []workv1alpha2.TargetCluster{{Name: "member1"}},
		},
	}
	tmpl := mustObject(t, `{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: "system:aggregate-to-edit", uid: u1}, rules: []}`)
	w := renderAll(t, crbKind.wrap(crb), tmpl, nil)["member1"]
	if w.Name != "system.aggregate-to-edit-7c5f844fc5" {
		t.Errorf("Work name %s", w.Name)
	}
	if w.Labels[names.ClusterResourceBindingPermanentIDLabel] != "C" || w.Annotations[names.ClusterResourceBindingNameAnnotation] != crb.Name {
		t.Errorf("Work metadata %v %v", w.Labels, w.Annotations)
	}
	m := manifestOf(t, w)
	if m.GetLabels()[names.ClusterResourceBindingPermanentIDLabel] != "C" || m.GetAnnotations()[names.ClusterResourceBindingNameAnnotation] != crb.Name {
		t.Errorf("manifest metadata %v %v", m.GetLabels(), m.GetAnnotations())
	}
	// generation 0: no generation annotation.
	if _, ok := m.GetAnnotations()[names.ResourceTemplateGenerationAnnotation]; ok {
		t.Error("generation annotation without a generation")
	}
}

func TestAppliedOverridesOnWork(t *testing.T) {
	op := &policyv1alpha1.OverridePolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "image-for-member2"},
		Spec: policyv1alpha1.OverrideSpec{OverrideRules: []policyv1alpha1.RuleWithCluster{{
			TargetCluster: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}},
			Overriders: policyv1alpha1.Overriders{ImageOverrider: []policyv1alpha1.ImageOverrider{
				{Component: policyv1alpha1.Tag, Operator: policyv1alpha1.OverriderOpReplace, Value: "1.27"},
			}},
		}}},
	}
	set := overrides.NewSet(nil, []*overrides.Policy{overrides.FromOverridePolicy(op)})
	works := renderAll(t, rbKind.wrap(exampleBinding()), exampleTemplate(t), set)
	if _, ok := works["member1"].Annotations[names.AppliedOverridesAnnotation]; ok {
		t.Error("member1 Work records overrides")
	}
	const want = `[{"policyName":"image-for-member2","overriders":{"imageOverrider":[{"component":"Tag","operator":"replace","value":"1.27"}]}}]`
	if got := works["member2"].Annotations[names.AppliedOverridesAnnotation]; got != want {
		t.Errorf("applied-overrides = %s", got)
	}
	if img := containerImage(t, manifestOf(t, works["member2"])); img != "nginx:1.27" {
		t.Errorf("member2 image %s", img)
	}
	if img := containerImage(t, manifestOf(t, works["member1"])); img != "nginx" {
		t.Errorf("member1 image %s", img)
	}
}

func TestTargetsAndExpectedClusters(t *testing.T) {
	rb := exampleBinding()
	rb.Spec.Clusters = []workv1alpha2.TargetCluster{{Name: "b", Replicas: 1}, {Name: "a", Replicas: 2}, {Name: "b", Replicas: 3}}
	rb.Spec.RequiredBy = []workv1alpha2.BindingSnapshot{{Name: "x", Clusters: []workv1alpha2.TargetCluster{{Name: "a", Replicas: 9}, {Name: "c", Replicas: 4}}}}
	rb.Spec.GracefulEvictionTasks = []workv1alpha2.GracefulEvictionTask{
		{FromCluster: "d", PurgeMode: policyv1alpha1.PurgeModeGracefully},
		{FromCluster: "e", PurgeMode: policyv1alpha1.PurgeModeDirectly},
		{FromCluster: "f"},
	}
	b := rbKind.wrap(rb)
	want := []workv1alpha2.TargetCluster{{Name: "b", Replicas: 3}, {Name: "a", Replicas: 2}, {Name: "c", Replicas: 4}}
	if got := b.targets(); !reflect.DeepEqual(got, want) {
		t.Errorf("targets = %v, want %v", got, want)
	}
	var expected []string
	for c := range b.expectedClusters() {
		expected = append(expected, c)
	}
	sort.Strings(expected)
	if got := strings.Join(expected, ","); got != "a,b,c,d,f" {
		t.Errorf("expected clusters = %s", got)
	}
	if got := b.directlyPurged(); !reflect.DeepEqual(got, map[string]bool{"e": true}) {
		t.Errorf("directly purged = %v", got)
	}
}
