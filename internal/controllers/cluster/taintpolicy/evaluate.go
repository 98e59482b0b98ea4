package taintpolicy

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/propel-mc/propel/internal/controllers/cluster/taints"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/affinity"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// sortOldestFirst orders policies by creationTimestamp, then name (the
// API server's timestamps have one-second resolution).
func sortOldestFirst(policies []policyv1alpha1.ClusterTaintPolicy) {
	slices.SortStableFunc(policies, func(a, b policyv1alpha1.ClusterTaintPolicy) int {
		if c := a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
}

// desiredTaints applies policies (sorted oldest first) to cluster's
// taints and returns the result and whether it differs. The cluster is
// not modified.
func desiredTaints(cluster *clusterv1alpha1.Cluster, policies []policyv1alpha1.ClusterTaintPolicy, now time.Time) ([]corev1.Taint, bool) {
	out := slices.Clone(cluster.Spec.Taints)
	changed := false
	for i := range policies {
		p := &policies[i]
		if !targets(p, cluster) {
			continue
		}
		if conditionsMatch(cluster.Status.Conditions, p.Spec.AddOnConditions) {
			for _, pt := range p.Spec.Taints {
				t := corev1.Taint{Key: pt.Key, Value: pt.Value, Effect: pt.Effect}
				if taints.Index(out, t) >= 0 {
					continue
				}
				stamp := metav1.NewTime(now)
				t.TimeAdded = &stamp
				out = append(out, t)
				changed = true
			}
		}
		if conditionsMatch(cluster.Status.Conditions, p.Spec.RemoveOnConditions) {
			for _, pt := range p.Spec.Taints {
				if j := taints.Index(out, corev1.Taint{Key: pt.Key, Effect: pt.Effect}); j >= 0 {
					out = slices.Delete(out, j, j+1)
					changed = true
				}
			}
		}
	}
	return out, changed
}

// targets reports whether p's targetClusters select cluster (nil selects
// every cluster; an invalid selector selects none).
func targets(p *policyv1alpha1.ClusterTaintPolicy, cluster *clusterv1alpha1.Cluster) bool {
	return p.Spec.TargetClusters == nil || affinity.ClusterMatches(cluster, p.Spec.TargetClusters)
}

// conditionsMatch reports whether every match holds for conditions (an
// empty list never matches). A match holds when a condition of its type
// exists and its status is (In) or is not (NotIn) among statusValues; a
// missing condition fails the match whatever the operator, and an
// unknown operator fails the whole list (Karmada's rules).
func conditionsMatch(conditions []metav1.Condition, matches []policyv1alpha1.MatchCondition) bool {
	if len(matches) == 0 {
		return false
	}
	for _, m := range matches {
		c := meta.FindStatusCondition(conditions, m.ConditionType)
		if c == nil {
			return false
		}
		listed := slices.Contains(m.StatusValues, c.Status)
		switch m.Operator {
		case policyv1alpha1.MatchConditionOpIn:
			if !listed {
				return false
			}
		case policyv1alpha1.MatchConditionOpNotIn:
			if listed {
				return false
			}
		default:
			return false
		}
	}
	return true
}
