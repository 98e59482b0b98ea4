package remedy

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	remedyv1alpha1 "github.com/propel-mc/propel/pkg/apis/remedy/v1alpha1"
)

// selects reports whether the Remedy applies to cluster: an unset
// clusterAffinity selects every cluster, an empty name list none.
func selects(r *remedyv1alpha1.Remedy, cluster string) bool {
	a := r.Spec.ClusterAffinity
	return a == nil || slices.Contains(a.ClusterNames, cluster)
}

// decides reports whether the Remedy's decision matches hold for the
// conditions, as Karmada decides: unset decisionMatches always hold; else
// any one entry must hold (entries without a clusterConditionMatch, or
// naming a condition the cluster lacks, are skipped), so an explicitly
// empty list never holds.
func decides(r *remedyv1alpha1.Remedy, conditions []metav1.Condition) bool {
	if r.Spec.DecisionMatches == nil {
		return true
	}
	for _, m := range r.Spec.DecisionMatches {
		req := m.ClusterConditionMatch
		if req == nil {
			continue
		}
		c := meta.FindStatusCondition(conditions, string(req.ConditionType))
		if c == nil {
			continue
		}
		switch req.Operator {
		case remedyv1alpha1.ClusterConditionEqual:
			if string(c.Status) == req.ConditionStatus {
				return true
			}
		case remedyv1alpha1.ClusterConditionNotEqual:
			if string(c.Status) != req.ConditionStatus {
				return true
			}
		}
	}
	return false
}

// actions is the sorted, de-duplicated union of the actions of the
// remedies that select cluster and decide on its conditions.
func actions(remedies []remedyv1alpha1.Remedy, cluster string, conditions []metav1.Condition) []string {
	var out []string
	for i := range remedies {
		r := &remedies[i]
		if !selects(r, cluster) || !decides(r, conditions) {
			continue
		}
		for _, a := range r.Spec.Actions {
			out = append(out, string(a))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
