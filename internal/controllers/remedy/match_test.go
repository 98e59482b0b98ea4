package remedy

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	remedyv1alpha1 "github.com/propel-mc/propel/pkg/apis/remedy/v1alpha1"
)

func dnsMatch(op remedyv1alpha1.ClusterConditionOperator, status string) remedyv1alpha1.DecisionMatch {
	return remedyv1alpha1.DecisionMatch{ClusterConditionMatch: &remedyv1alpha1.ClusterConditionRequirement{
		ConditionType: remedyv1alpha1.ServiceDomainNameResolutionReady, Operator: op, ConditionStatus: status,
	}}
}

func TestActions(t *testing.T) {
	dnsFalse := []metav1.Condition{{Type: string(remedyv1alpha1.ServiceDomainNameResolutionReady), Status: metav1.ConditionFalse}}
	dnsTrue := []metav1.Condition{{Type: string(remedyv1alpha1.ServiceDomainNameResolutionReady), Status: metav1.ConditionTrue}}
	remedy := func(affinity *remedyv1alpha1.ClusterAffinity, matches []remedyv1alpha1.DecisionMatch, actions ...remedyv1alpha1.RemedyAction) remedyv1alpha1.Remedy {
		return remedyv1alpha1.Remedy{Spec: remedyv1alpha1.RemedySpec{ClusterAffinity: affinity, DecisionMatches: matches, Actions: actions}}
	}
	member1 := &remedyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1"}}
	cases := []struct {
		name       string
		remedies   []remedyv1alpha1.Remedy
		conditions []metav1.Condition
		want       string
	}{
		{"equal holds", []remedyv1alpha1.Remedy{remedy(member1, []remedyv1alpha1.DecisionMatch{dnsMatch("Equal", "False")}, "TrafficControl")}, dnsFalse, "[TrafficControl]"},
		{"equal fails", []remedyv1alpha1.Remedy{remedy(member1, []remedyv1alpha1.DecisionMatch{dnsMatch("Equal", "False")}, "TrafficControl")}, dnsTrue, "[]"},
		{"not equal", []remedyv1alpha1.Remedy{remedy(member1, []remedyv1alpha1.DecisionMatch{dnsMatch("NotEqual", "True")}, "TrafficControl")}, dnsFalse, "[TrafficControl]"},
		{"other cluster", []remedyv1alpha1.Remedy{remedy(&remedyv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}}, nil, "TrafficControl")}, dnsFalse, "[]"},
		{"empty name list selects none", []remedyv1alpha1.Remedy{remedy(&remedyv1alpha1.ClusterAffinity{}, nil, "TrafficControl")}, dnsFalse, "[]"},
		{"unset matches hold without conditions", []remedyv1alpha1.Remedy{remedy(nil, nil, "TrafficControl")}, nil, "[TrafficControl]"},
		{"empty matches never hold", []remedyv1alpha1.Remedy{remedy(nil, []remedyv1alpha1.DecisionMatch{}, "TrafficControl")}, dnsFalse, "[]"},
		{"missing condition is skipped", []remedyv1alpha1.Remedy{remedy(nil, []remedyv1alpha1.DecisionMatch{{}, dnsMatch("NotEqual", "True")}, "TrafficControl")}, nil, "[]"},
		{"any match holds", []remedyv1alpha1.Remedy{remedy(nil, []remedyv1alpha1.DecisionMatch{{}, dnsMatch("Equal", "True"), dnsMatch("Equal", "False")}, "TrafficControl")}, dnsFalse, "[TrafficControl]"},
		{"union sorted and unique", []remedyv1alpha1.Remedy{remedy(nil, nil, "TrafficControl", "Zeta"), remedy(member1, nil, "Alpha", "TrafficControl")}, nil, "[Alpha TrafficControl Zeta]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := fmt.Sprint(actions(tc.remedies, "member1", tc.conditions)); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
