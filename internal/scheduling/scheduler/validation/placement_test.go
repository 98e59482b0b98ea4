package validation

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

func TestPlacement(t *testing.T) {
	sc := func(f policyv1alpha1.SpreadFieldValue, minG, maxG int) policyv1alpha1.SpreadConstraint {
		return policyv1alpha1.SpreadConstraint{SpreadByField: f, MinGroups: minG, MaxGroups: maxG}
	}
	field := func(key string, op corev1.NodeSelectorOperator, values ...string) *policyv1alpha1.ClusterAffinity {
		return &policyv1alpha1.ClusterAffinity{FieldSelector: &policyv1alpha1.FieldSelector{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}}
	}
	tests := []struct {
		name string
		p    *policyv1alpha1.Placement
		want string // substring of the error, "" for valid
	}{
		{"nil", nil, ""},
		{"valid", &policyv1alpha1.Placement{ClusterAffinity: field("region", corev1.NodeSelectorOpIn, "a"),
			SpreadConstraints: []policyv1alpha1.SpreadConstraint{sc("cluster", 1, 2), sc("region", 1, 1)}}, ""},
		{"invalid label selector", &policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{
			LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}}},
			"spec.placement.clusterAffinity.labelSelector"},
		{"unknown field key", &policyv1alpha1.Placement{ClusterAffinity: field("color", corev1.NodeSelectorOpIn, "x")},
			"spec.placement.clusterAffinity.fieldSelector.matchExpressions[0].key"},
		{"In without values", &policyv1alpha1.Placement{ClusterAffinity: field("provider", corev1.NodeSelectorOpIn)},
			"spec.placement.clusterAffinity.fieldSelector.matchExpressions[0]"},
		{"zone Gt", &policyv1alpha1.Placement{ClusterAffinity: field("zone", corev1.NodeSelectorOpGt, "1")},
			"spec.placement.clusterAffinity.fieldSelector.matchExpressions[0].operator"},
		{"bad overflow affinity", &policyv1alpha1.Placement{ClusterAffinities: []policyv1alpha1.ClusterAffinityTerm{{AffinityName: "a",
			OverflowAffinities: []policyv1alpha1.OverflowClusterAffinity{{AffinityName: "o", ClusterAffinity: *field("color", corev1.NodeSelectorOpIn, "x")}}}}},
			"spec.placement.clusterAffinities[0].overflowAffinities[0].fieldSelector"},
		{"both affinities", &policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{},
			ClusterAffinities: []policyv1alpha1.ClusterAffinityTerm{{AffinityName: "a"}}}, "mutually exclusive"},
		{"maxGroups below minGroups", &policyv1alpha1.Placement{SpreadConstraints: []policyv1alpha1.SpreadConstraint{sc("cluster", 3, 2)}},
			"spec.placement.spreadConstraints[0].maxGroups"},
		{"negative minGroups", &policyv1alpha1.Placement{SpreadConstraints: []policyv1alpha1.SpreadConstraint{sc("cluster", -1, 2)}},
			"spec.placement.spreadConstraints[0].minGroups"},
		{"field and label", &policyv1alpha1.Placement{SpreadConstraints: []policyv1alpha1.SpreadConstraint{{SpreadByField: "cluster", SpreadByLabel: "x", MaxGroups: 1}}},
			"spec.placement.spreadConstraints[0].spreadByLabel"},
		{"duplicate field", &policyv1alpha1.Placement{SpreadConstraints: []policyv1alpha1.SpreadConstraint{sc("cluster", 1, 2), sc("cluster", 1, 2)}},
			"spec.placement.spreadConstraints[1].spreadByField"},
		{"region without cluster", &policyv1alpha1.Placement{SpreadConstraints: []policyv1alpha1.SpreadConstraint{sc("region", 1, 2)}},
			"the cluster spread constraint must be enabled"},
		{"bad static weight selector", &policyv1alpha1.Placement{ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
			WeightPreference: &policyv1alpha1.ClusterPreferences{StaticWeightList: []policyv1alpha1.StaticClusterWeight{{TargetCluster: *field("color", "In", "x"), Weight: 1}}}}},
			"spec.placement.replicaScheduling.weightPreference.staticWeightList[0].targetCluster"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := Placement(tt.p)
			if tt.want == "" {
				if len(errs) != 0 {
					t.Fatalf("unexpected errors: %v", errs)
				}
				return
			}
			if len(errs) == 0 || !strings.Contains(errs.ToAggregate().Error(), tt.want) {
				t.Fatalf("errors %v do not name %q", errs, tt.want)
			}
		})
	}
}
