package assign

import (
	"fmt"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// AssignTiers splits the selected clusters into overflow tiers (runs of
// equal OverflowOrder; the clusters are ordered by it) and gives tier k
// min(remaining, Σ available replicas of tier k), assigned with the
// normal strategy inside the tier. Replicas left after the last tier make
// the binding unschedulable.
func AssignTiers(req Request) ([]workv1alpha2.TargetCluster, error) {
	var out []workv1alpha2.TargetCluster
	remaining := int64(req.Replicas)
	var capacity int64
	for start := 0; start < len(req.Clusters) && remaining > 0; {
		end := start
		var tierAvailable int64
		for ; end < len(req.Clusters) && req.Clusters[end].OverflowOrder == req.Clusters[start].OverflowOrder; end++ {
			tierAvailable += req.Clusters[end].AvailableReplicas
		}
		capacity += tierAvailable
		share := min(remaining, tierAvailable)
		if share > 0 {
			tcs, err := Assign(tierRequest(req, req.Clusters[start:end], int32(share)))
			if err != nil {
				return nil, err
			}
			out = append(out, tcs...)
			remaining -= share
		}
		start = end
	}
	if remaining > 0 {
		return nil, &framework.UnschedulableError{Message: fmt.Sprintf("Clusters available replicas %d are not enough to schedule.", capacity)}
	}
	return out, nil
}

func tierRequest(req Request, tier []framework.ClusterDetail, replicas int32) Request {
	sub := req
	sub.Replicas, sub.Clusters, sub.Previous = replicas, tier, nil
	for _, tc := range req.Previous {
		for i := range tier {
			if tier[i].Name() == tc.Name {
				sub.Previous = append(sub.Previous, tc)
				break
			}
		}
	}
	return sub
}
