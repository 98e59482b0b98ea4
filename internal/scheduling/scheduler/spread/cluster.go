package spread

import (
	"errors"
	"slices"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

var errTooFewClusters = errors.New("the number of feasible clusters is less than spreadConstraint.MinGroups")

// byCluster takes the first min(#clusters, maxGroups) clusters. With a
// resource check it then walks the selection from the end, replacing each
// position with the unselected cluster of most available replicas when
// that is strictly more, until the selection holds need replicas.
func byCluster(sc policyv1alpha1.SpreadConstraint, ordered []framework.ClusterDetail, need int64) ([]framework.ClusterDetail, error) {
	if len(ordered) < sc.MinGroups {
		return nil, errTooFewClusters
	}
	needCnt := min(len(ordered), sc.MaxGroups)
	selected := slices.Clone(ordered[:needCnt])
	if need == framework.InvalidReplicas {
		return selected, nil
	}
	rest := slices.Clone(ordered[needCnt:])
	for pos := len(selected) - 1; sumAvailable(selected) < need && pos >= 0 && len(rest) > 0; pos-- {
		best := maxAvailableAbove(rest, selected[pos].AvailableReplicas)
		if best < 0 {
			continue
		}
		selected[pos] = rest[best]
		rest = slices.Delete(rest, best, best+1)
	}
	if sumAvailable(selected) < need {
		return nil, notEnough(needCnt)
	}
	return selected, nil
}

// maxAvailableAbove is the index of the first cluster with the most
// available replicas, if that is more than floor; -1 otherwise.
func maxAvailableAbove(clusters []framework.ClusterDetail, floor int64) int {
	best := -1
	for i := range clusters {
		if clusters[i].AvailableReplicas > floor {
			best, floor = i, clusters[i].AvailableReplicas
		}
	}
	return best
}
