package assign

import (
	"github.com/propel-mc/propel/internal/scheduling/scheduler/affinity"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// staticWeight divides the replicas by static weights with Webster, from
// scratch every time (previous results are not used).
func staticWeight(req Request) []workv1alpha2.TargetCluster {
	parties := staticParties(req)
	return fromParties(Webster(req.Replicas, parties, TieBreakFor(req.Spec.Resource.UID)))
}

// staticParties gives each selected cluster the largest weight among the
// static weight entries matching it, leaves out clusters of weight 0, and
// weighs every cluster 1 when there is no weight preference or no cluster
// has a weight.
func staticParties(req Request) []Party {
	var list []matchedWeight
	if wp := req.Spec.Placement.ReplicaScheduling.WeightPreference; wp != nil {
		list = make([]matchedWeight, len(wp.StaticWeightList))
		for i, w := range wp.StaticWeightList {
			list[i] = matchedWeight{matcher: affinity.MustCompile(&w.TargetCluster), weight: w.Weight}
		}
	}
	parties := make([]Party, 0, len(req.Clusters))
	for i := range req.Clusters {
		var weight int64
		for _, mw := range list {
			if mw.weight > weight && mw.matcher.Matches(req.Clusters[i].Cluster) {
				weight = mw.weight
			}
		}
		if weight > 0 {
			parties = append(parties, Party{Name: req.Clusters[i].Name(), Weight: weight})
		}
	}
	if len(parties) > 0 {
		return parties
	}
	for i := range req.Clusters {
		parties = append(parties, Party{Name: req.Clusters[i].Name(), Weight: 1})
	}
	return parties
}

type matchedWeight struct {
	matcher *affinity.Matcher
	weight  int64
}
