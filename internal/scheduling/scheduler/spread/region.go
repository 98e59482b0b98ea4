package spread

import (
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// weightUnit scales the replica part of a region's score.
const weightUnit = 1000

var (
	errTooFewRegions  = errors.New("the number of feasible region is less than spreadConstraint.MinGroups")
	errNoRegionChoice = errors.New("no combination of regions satisfies the spread constraints")
)

// region is the clusters of one region, in scheduler order.
type region struct {
	name     string
	clusters []framework.ClusterDetail
	score    int64
}

// byRegion scores regions, chooses a region combination, takes the best
// cluster of each chosen region and fills up to the cluster constraint's
// maxGroups from their other clusters.
func byRegion(spec *workv1alpha2.ResourceBindingSpec, regionSC, clusterSC policyv1alpha1.SpreadConstraint, ordered []framework.ClusterDetail) ([]framework.ClusterDetail, error) {
	regions := groupByRegion(ordered)
	if len(regions) < regionSC.MinGroups {
		return nil, errTooFewRegions
	}
	for i := range regions {
		regions[i].score = regionScore(spec, &regions[i], regionSC.MinGroups, clusterSC.MinGroups)
	}
	chosen := chooseRegions(regions, regionSC.MinGroups, regionSC.MaxGroups, clusterSC.MinGroups)
	if chosen == nil {
		return nil, errNoRegionChoice
	}
	var selected, candidates []framework.ClusterDetail
	for _, r := range chosen {
		selected = append(selected, r.clusters[0])
		candidates = append(candidates, r.clusters[1:]...)
	}
	restCnt := min(len(selected)+len(candidates), clusterSC.MaxGroups) - len(selected)
	if restCnt <= 0 {
		return selected, nil
	}
	slices.SortFunc(candidates, byScoreAvailableName)
	return append(selected, candidates[:restCnt]...), nil
}

func groupByRegion(ordered []framework.ClusterDetail) []region {
	var regions []region
	index := map[string]int{}
	for _, d := range ordered {
		name := d.Cluster.Spec.Region
		i, ok := index[name]
		if !ok {
			i = len(regions)
			index[name] = i
			regions = append(regions, region{name: name})
		}
		regions[i].clusters = append(regions[i].clusters, d)
	}
	return regions
}

// regionScore: for Duplicated, 1000 × (clusters that hold all replicas) +
// their average score; for Divided, walk the clusters until at least
// max(clusterMin, regionMin) are taken and they hold
// ceil(replicas/regionMin), and score 1000 × min(sum, target) + the
// average score of the walked clusters.
func regionScore(spec *workv1alpha2.ResourceBindingSpec, r *region, regionMin, clusterMin int) int64 {
	if isDuplicated(spec.Placement) {
		var valid, sum int64
		for _, c := range r.clusters {
			if c.AvailableReplicas >= int64(spec.Replicas) {
				valid++
				sum += c.Score
			}
		}
		if valid == 0 {
			return 0
		}
		return valid*weightUnit + sum/valid
	}
	target := int64(math.Ceil(float64(spec.Replicas) / float64(max(regionMin, 1))))
	minClusters := int64(max(clusterMin, regionMin))
	var n, available, score int64
	for _, c := range r.clusters {
		n++
		available += c.AvailableReplicas
		score += c.Score
		if n >= minClusters && available >= target {
			break
		}
	}
	return weightUnit*min(available, target) + score/n
}

func byScoreAvailableName(a, b framework.ClusterDetail) int {
	switch {
	case a.Score != b.Score:
		return cmpDesc(a.Score, b.Score)
	case a.AvailableReplicas != b.AvailableReplicas:
		return cmpDesc(a.AvailableReplicas, b.AvailableReplicas)
	}
	return strings.Compare(a.Cluster.Name, b.Cluster.Name)
}

func cmpDesc(a, b int64) int {
	if a > b {
		return -1
	}
	return 1
}
