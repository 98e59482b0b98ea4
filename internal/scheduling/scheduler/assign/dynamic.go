package assign

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// dynamic implements DynamicWeight and Aggregated. In fresh mode the
// previous result is discarded and clusters weigh allocatable + previous
// replicas. In steady mode a scale down re-divides the replicas by the
// previous per-cluster replicas; a scale up (including the first schedule)
// divides only the new replicas by allocatable and adds them to the
// previous result; an unchanged total keeps the previous result.
func dynamic(req Request, aggregated bool) ([]workv1alpha2.TargetCluster, error) {
	scheduled, assigned := stillSelected(req.Previous, req.Clusters)
	var (
		target  int32
		parties []Party
		base    []workv1alpha2.TargetCluster
	)
	switch {
	case req.Fresh:
		target, parties = req.Replicas, allocatableParties(req.Clusters, scheduled)
	case assigned > int64(req.Replicas):
		target, parties = req.Replicas, previousParties(scheduled)
	case assigned < int64(req.Replicas):
		target, parties, base = req.Replicas-int32(assigned), allocatableParties(req.Clusters, nil), scheduled
	default:
		return scheduled, nil
	}
	sort.Sort(byWeight(parties))
	if sum := totalWeight(parties); sum < int64(target) {
		return nil, &framework.UnschedulableError{Message: fmt.Sprintf("Clusters available replicas %d are not enough to schedule.", sum)}
	}
	if aggregated {
		parties = shortestPrefix(previousFirst(parties, base), target)
	}
	result := fromParties(Webster(target, parties, TieBreakFor(req.Spec.Resource.UID)))
	return merge(base, result), nil
}

// stillSelected keeps the previous entries whose cluster is still selected
// and sums their replicas.
func stillSelected(previous []workv1alpha2.TargetCluster, clusters []framework.ClusterDetail) ([]workv1alpha2.TargetCluster, int64) {
	var out []workv1alpha2.TargetCluster
	var sum int64
	for _, tc := range previous {
		if slices.ContainsFunc(clusters, func(d framework.ClusterDetail) bool { return d.Name() == tc.Name }) {
			out = append(out, tc)
			sum += int64(tc.Replicas)
		}
	}
	return out, sum
}

// allocatableParties weighs each selected cluster by its allocatable
// replicas plus its replicas in previous.
func allocatableParties(clusters []framework.ClusterDetail, previous []workv1alpha2.TargetCluster) []Party {
	parties := make([]Party, len(clusters))
	for i := range clusters {
		parties[i] = Party{Name: clusters[i].Name(), Weight: clusters[i].AllocatableReplicas + int64(replicasOf(previous, clusters[i].Name()))}
	}
	return parties
}

// previousParties weighs each previously scheduled cluster by its replicas.
func previousParties(scheduled []workv1alpha2.TargetCluster) []Party {
	parties := make([]Party, len(scheduled))
	for i, tc := range scheduled {
		parties[i] = Party{Name: tc.Name, Weight: int64(tc.Replicas)}
	}
	return parties
}

// previousFirst moves clusters that already hold replicas to the front,
// keeping relative order (only when there is a previous result).
func previousFirst(parties []Party, base []workv1alpha2.TargetCluster) []Party {
	if len(base) == 0 {
		return parties
	}
	out := make([]Party, 0, len(parties))
	for _, p := range parties {
		if replicasOf(base, p.Name) > 0 {
			out = append(out, p)
		}
	}
	for _, p := range parties {
		if replicasOf(base, p.Name) <= 0 {
			out = append(out, p)
		}
	}
	return out
}

// shortestPrefix keeps the shortest prefix whose weights reach target.
func shortestPrefix(parties []Party, target int32) []Party {
	var sum int64
	for i, p := range parties {
		sum += p.Weight
		if sum >= int64(target) {
			return parties[:i+1]
		}
	}
	return parties
}

// merge adds result to base by name. Base entries missing from result are
// appended in name order (Karmada appends them in map order; consumers
// treat spec.clusters as a set).
func merge(base, result []workv1alpha2.TargetCluster) []workv1alpha2.TargetCluster {
	if len(base) == 0 {
		return result
	}
	rest := make([]workv1alpha2.TargetCluster, 0, len(base))
	for _, b := range base {
		i := slices.IndexFunc(result, func(tc workv1alpha2.TargetCluster) bool { return tc.Name == b.Name })
		if i >= 0 {
			result[i].Replicas += b.Replicas
		} else if b.Replicas > 0 {
			rest = append(rest, b)
		}
	}
	slices.SortFunc(rest, func(a, b workv1alpha2.TargetCluster) int { return strings.Compare(a.Name, b.Name) })
	return append(result, rest...)
}

func replicasOf(tcs []workv1alpha2.TargetCluster, name string) int32 {
	for _, tc := range tcs {
		if tc.Name == name {
			return tc.Replicas
		}
	}
	return 0
}

func totalWeight(parties []Party) int64 {
	var sum int64
	for _, p := range parties {
		sum += p.Weight
	}
	return sum
}

// byWeight sorts parties by weight descending with sort.Sort, which, like
// Karmada's, is not stable.
type byWeight []Party

func (w byWeight) Len() int           { return len(w) }
func (w byWeight) Less(i, j int) bool { return w[i].Weight > w[j].Weight }
func (w byWeight) Swap(i, j int)      { w[i], w[j] = w[j], w[i] }
