package spread

import (
	"errors"
	"fmt"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// errUnsupported is Karmada's error for constraints other than region and
// cluster (including spreadByLabel).
var errUnsupported = errors.New("just support cluster and region spread constraint")

// Select returns the clusters the binding goes to, from the fitting
// clusters in scheduler order.
func Select(spec *workv1alpha2.ResourceBindingSpec, ordered []framework.ClusterDetail) ([]framework.ClusterDetail, error) {
	p := spec.Placement
	if len(p.SpreadConstraints) == 0 || ignoresSpreadConstraints(p) {
		return ordered, nil
	}
	byField := make(map[policyv1alpha1.SpreadFieldValue]policyv1alpha1.SpreadConstraint, len(p.SpreadConstraints))
	for _, sc := range p.SpreadConstraints {
		byField[sc.SpreadByField] = sc
	}
	if region, ok := byField[policyv1alpha1.SpreadByFieldRegion]; ok {
		return byRegion(spec, region, byField[policyv1alpha1.SpreadByFieldCluster], ordered)
	}
	if cluster, ok := byField[policyv1alpha1.SpreadByFieldCluster]; ok {
		return byCluster(cluster, ordered, neededReplicas(spec))
	}
	return nil, errUnsupported
}

// ignoresSpreadConstraints is true for Divided+Weighted static weights
// (no weight preference, or a static list without a dynamic weight).
func ignoresSpreadConstraints(p *policyv1alpha1.Placement) bool {
	rs := p.ReplicaScheduling
	if rs == nil || rs.ReplicaSchedulingType != policyv1alpha1.ReplicaSchedulingTypeDivided ||
		rs.ReplicaDivisionPreference != policyv1alpha1.ReplicaDivisionPreferenceWeighted {
		return false
	}
	wp := rs.WeightPreference
	return wp == nil || (len(wp.StaticWeightList) != 0 && wp.DynamicWeight == "")
}

// neededReplicas is the replica total the selection must be able to hold:
// none (InvalidReplicas) for Duplicated, 1 for multi-component workloads,
// spec.replicas otherwise.
func neededReplicas(spec *workv1alpha2.ResourceBindingSpec) int64 {
	if spec.Placement.ReplicaSchedulingType() == policyv1alpha1.ReplicaSchedulingTypeDuplicated {
		return framework.InvalidReplicas
	}
	if len(spec.Components) > 1 {
		return 1
	}
	return int64(spec.Replicas)
}

// isDuplicated reports whether the placement duplicates replicas.
func isDuplicated(p *policyv1alpha1.Placement) bool {
	return p.ReplicaSchedulingType() == policyv1alpha1.ReplicaSchedulingTypeDuplicated
}

func sumAvailable(clusters []framework.ClusterDetail) int64 {
	var sum int64
	for i := range clusters {
		sum += clusters[i].AvailableReplicas
	}
	return sum
}

func notEnough(n int) error {
	return fmt.Errorf("no enough resource when selecting %d clusters", n)
}
