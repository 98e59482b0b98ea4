package affinity

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

func fieldAffinity(key string, op corev1.NodeSelectorOperator, values ...string) *policyv1alpha1.ClusterAffinity {
	return &policyv1alpha1.ClusterAffinity{FieldSelector: &policyv1alpha1.FieldSelector{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}}
}

func TestClusterMatches(t *testing.T) {
	east := st.Cluster("east", st.Labels("env", "prod"), st.Location("aws", "us-east", "a", "b"))
	bare := st.Cluster("bare")
	tests := []struct {
		name string
		a    *policyv1alpha1.ClusterAffinity
		east bool
		bare bool
	}{
		{"nil affinity matches all", nil, true, true},
		{"clusterNames", &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"east"}}, true, false},
		{"exclude wins over names", &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"east"}, ExcludeClusters: []string{"east"}}, false, false},
		{"label selector", &policyv1alpha1.ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}, true, false},
		{"invalid label selector never matches", &policyv1alpha1.ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: "Bogus"}}}}, false, false},
		{"zone In", fieldAffinity("zone", corev1.NodeSelectorOpIn, "b", "z"), true, false},
		{"zone In without overlap", fieldAffinity("zone", corev1.NodeSelectorOpIn, "z"), false, false},
		{"zone NotIn", fieldAffinity("zone", corev1.NodeSelectorOpNotIn, "a"), false, true},
		{"zone Exists", fieldAffinity("zone", corev1.NodeSelectorOpExists), true, false},
		{"zone DoesNotExist", fieldAffinity("zone", corev1.NodeSelectorOpDoesNotExist), false, true},
		{"zone Gt is unsupported: no match", fieldAffinity("zone", corev1.NodeSelectorOpGt, "1"), false, false},
		{"region In", fieldAffinity("region", corev1.NodeSelectorOpIn, "us-east"), true, false},
		{"provider NotIn (absent matches)", fieldAffinity("provider", corev1.NodeSelectorOpNotIn, "aws"), false, true},
		{"region Exists", fieldAffinity("region", corev1.NodeSelectorOpExists), true, false},
		{"all conditions ANDed", &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"east", "bare"}, FieldSelector: fieldAffinity("provider", corev1.NodeSelectorOpIn, "aws").FieldSelector}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ClusterMatches(east, tt.a); got != tt.east {
				t.Errorf("east: got %v, want %v", got, tt.east)
			}
			if got := ClusterMatches(bare, tt.a); got != tt.bare {
				t.Errorf("bare: got %v, want %v", got, tt.bare)
			}
		})
	}
}

func TestEffectiveTermAndOverflowOrder(t *testing.T) {
	p := &policyv1alpha1.Placement{ClusterAffinities: []policyv1alpha1.ClusterAffinityTerm{
		{AffinityName: "primary", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"p"}},
			OverflowAffinities: []policyv1alpha1.OverflowClusterAffinity{
				{AffinityName: "o1", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"o1"}}},
				{AffinityName: "o2", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"o2", "o1"}}},
			}},
		{AffinityName: "backup", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"b"}}},
	}}
	term := EffectiveTerm(p, "primary", true)
	for name, want := range map[string]int{"p": 0, "o1": 1, "o2": 2, "b": NoOverflowMatch} {
		if got := term.OverflowOrder(st.Cluster(name)); got != want {
			t.Errorf("OverflowOrder(%s) = %d, want %d", name, got, want)
		}
	}
	if !term.HasOverflow() {
		t.Error("workload term with overflow affinities must report HasOverflow")
	}
	if t2 := EffectiveTerm(p, "primary", false); t2.Matches(st.Cluster("o1")) || t2.HasOverflow() {
		t.Error("non-workloads must not use overflow affinities")
	}
	if EffectiveTerm(p, "unknown", true) != nil {
		t.Error("an unknown term name means no affinity")
	}
	if EffectiveTerm(&policyv1alpha1.Placement{}, "", true) != nil {
		t.Error("no affinity at all must give nil")
	}
}
