package preemption

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

func cpp(name string, prio *int32, selectors ...policyv1alpha1.ResourceSelector) *policyindex.Policy {
	p := pp("", name, prio, selectors...)
	p.Cluster = true
	return p
}

func preemptor(p *policyindex.Policy) *policyindex.Policy {
	p.Spec.Preemption = policyv1alpha1.PreemptAlways
	return p
}

func TestMayPreempt(t *testing.T) {
	cases := []struct {
		name               string
		preemptor, claimer *policyindex.Policy
		want               bool
	}{
		{"PP over lower PP", pp("default", "a", ptr.To[int32](2)), pp("default", "b", ptr.To[int32](1)), true},
		{"PP over equal PP", pp("default", "a", ptr.To[int32](1)), pp("default", "b", ptr.To[int32](1)), false},
		{"PP over higher PP", pp("default", "a", ptr.To[int32](1)), pp("default", "b", ptr.To[int32](2)), false},
		{"nil priority is 0", pp("default", "a", ptr.To[int32](1)), pp("default", "b", nil), true},
		{"PP over any CPP", pp("default", "a", ptr.To[int32](-5)), cpp("c", ptr.To[int32](100)), true},
		{"CPP never over PP", cpp("c", ptr.To[int32](100)), pp("default", "a", nil), false},
		{"CPP over lower CPP", cpp("c", ptr.To[int32](2)), cpp("d", ptr.To[int32](1)), true},
		{"CPP over equal CPP", cpp("c", nil), cpp("d", ptr.To[int32](0)), false},
	}
	for _, c := range cases {
		if got := mayPreempt(c.preemptor, c.claimer); got != c.want {
			t.Errorf("%s: mayPreempt = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestUnnamedSelector(t *testing.T) {
	named := pp("default", "a", nil, sel("x", nil), sel("y", nil))
	if _, ok := unnamedSelector(named.Spec); ok {
		t.Error("all selectors named, yet one reported unnamed")
	}
	mixed := pp("default", "a", nil, sel("x", nil), sel("", map[string]string{"app": "x"}))
	if i, ok := unnamedSelector(mixed.Spec); !ok || i != 1 {
		t.Errorf("unnamedSelector = %d, %v; want 1, true", i, ok)
	}
}

func TestPreemptionTarget(t *testing.T) {
	withNS := func(s policyv1alpha1.ResourceSelector, ns string) policyv1alpha1.ResourceSelector {
		s.Namespace = ns
		return s
	}
	cases := []struct {
		name   string
		p      *policyindex.Policy
		s      policyv1alpha1.ResourceSelector
		wantNS string
		wantOK bool
	}{
		{"PP selector without namespace", pp("prod", "a", nil), sel("nginx", nil), "prod", true},
		{"PP selector of its namespace", pp("prod", "a", nil), withNS(sel("nginx", nil), "prod"), "prod", true},
		{"PP selector of another namespace", pp("prod", "a", nil), withNS(sel("nginx", nil), "dev"), "", false},
		{"CPP selector with namespace", cpp("c", nil), withNS(sel("nginx", nil), "dev"), "dev", true},
		{"CPP selector without namespace", cpp("c", nil), sel("nginx", nil), "", true},
		{"no name", pp("prod", "a", nil), sel("", nil), "", false},
		{"bad apiVersion", pp("prod", "a", nil), policyv1alpha1.ResourceSelector{APIVersion: "a/b/c", Kind: "X", Name: "x"}, "", false},
	}
	for _, c := range cases {
		key, ok := preemptionTarget(c.p, c.s)
		if ok != c.wantOK {
			t.Errorf("%s: ok = %v, want %v", c.name, ok, c.wantOK)
			continue
		}
		if ok && (key.Namespace != c.wantNS || key.Name != c.s.Name || key.GVK.Kind != "Deployment" || key.GVK.Group != "apps") {
			t.Errorf("%s: target %s, want Deployment %s/%s", c.name, key, c.wantNS, c.s.Name)
		}
	}
}

func TestPreemptorsBetween(t *testing.T) {
	deleting := preemptor(pp("default", "deleting", ptr.To[int32](5)))
	deleting.Deleting = true
	candidates := []*policyindex.Policy{
		preemptor(pp("default", "p3", ptr.To[int32](3))),
		preemptor(pp("default", "p8", ptr.To[int32](8))),
		preemptor(pp("default", "b5", ptr.To[int32](5))),
		preemptor(pp("default", "a5", ptr.To[int32](5))),
		pp("default", "never7", ptr.To[int32](7)),              // preemption Never
		preemptor(pp("default", "implicit", nil)),              // no explicit priority
		preemptor(pp("default", "at-low", ptr.To[int32](1))),   // not strictly above low
		preemptor(pp("default", "at-high", ptr.To[int32](10))), // not strictly below high
		deleting,
	}
	var got []string
	for _, p := range preemptorsBetween(candidates, 1, 10) {
		got = append(got, p.Name)
	}
	if want := []string{"p8", "a5", "b5", "p3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("preemptors = %v, want %v (highest priority first)", got, want)
	}
}

func pp(ns, name string, prio *int32, selectors ...policyv1alpha1.ResourceSelector) *policyindex.Policy {
	return &policyindex.Policy{Namespace: ns, Name: name, ID: name + "-id", Spec: &policyv1alpha1.PropagationSpec{ResourceSelectors: selectors, Priority: prio}}
}

func sel(name string, labels map[string]string) policyv1alpha1.ResourceSelector {
	s := policyv1alpha1.ResourceSelector{APIVersion: "apps/v1", Kind: "Deployment", Name: name}
	if labels != nil {
		s.LabelSelector = &metav1.LabelSelector{MatchLabels: labels}
	}
	return s
}
