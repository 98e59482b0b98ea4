package spread

import (
	"slices"
	"strings"
)

// maxPaths bounds the exhaustive search; beyond it the best-ranked regions
// are taken greedily.
const maxPaths = 200000

// chooseRegions picks the region combination: regions are ranked by
// cluster count ascending, score descending, name; among combinations
// (in depth-first order) of minRegions..maxRegions regions holding at
// least minClusters clusters, the highest total score wins, then the most
// clusters, then the earliest. Because scores are never negative, adding a
// region never makes a feasible combination worse, so only combinations of
// exactly min(maxRegions, #regions) regions can win and only those are
// searched. It returns nil when nothing is feasible.
func chooseRegions(regions []region, minRegions, maxRegions, minClusters int) []region {
	ranked := slices.Clone(regions)
	slices.SortFunc(ranked, func(a, b region) int {
		switch {
		case len(a.clusters) != len(b.clusters):
			return len(a.clusters) - len(b.clusters)
		case a.score != b.score:
			return cmpDesc(a.score, b.score)
		}
		return strings.Compare(a.name, b.name)
	})
	k := min(maxRegions, len(ranked))
	if k < max(minRegions, 1) {
		return nil
	}
	var best []int
	if combinations(len(ranked), k) > maxPaths {
		best = greedyPath(ranked, k, minClusters)
	} else {
		search := pathSearch{regions: ranked, k: k, minClusters: minClusters}
		search.walk(nil, 0)
		best = search.best
	}
	if best == nil {
		return nil
	}
	out := make([]region, len(best))
	for i, idx := range best {
		out[i] = ranked[idx]
	}
	return out
}

// pathSearch enumerates k-region combinations in depth-first order.
type pathSearch struct {
	regions     []region
	k           int
	minClusters int
	best        []int
	bestScore   int64
	bestCount   int
}

func (s *pathSearch) walk(path []int, next int) {
	if len(path) == s.k {
		s.consider(path)
		return
	}
	for i := next; i <= len(s.regions)-(s.k-len(path)); i++ {
		s.walk(append(path, i), i+1)
	}
}

func (s *pathSearch) consider(path []int) {
	var score int64
	var count int
	for _, i := range path {
		score += s.regions[i].score
		count += len(s.regions[i].clusters)
	}
	if count < s.minClusters {
		return
	}
	if s.best == nil || score > s.bestScore || (score == s.bestScore && count > s.bestCount) {
		s.best, s.bestScore, s.bestCount = slices.Clone(path), score, count
	}
}

// greedyPath takes the k regions ranked by score, then cluster count, then
// rank; nil when they hold fewer than minClusters clusters.
func greedyPath(ranked []region, k, minClusters int) []int {
	idx := make([]int, len(ranked))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if ranked[a].score != ranked[b].score {
			return cmpDesc(ranked[a].score, ranked[b].score)
		}
		return len(ranked[b].clusters) - len(ranked[a].clusters)
	})
	path := idx[:k]
	slices.Sort(path)
	count := 0
	for _, i := range path {
		count += len(ranked[i].clusters)
	}
	if count < minClusters {
		return nil
	}
	return path
}

// combinations is C(n, k), saturating above maxPaths.
func combinations(n, k int) int {
	c := 1
	for i := 1; i <= k; i++ {
		c = c * (n - k + i) / i
		if c > maxPaths {
			return maxPaths + 1
		}
	}
	return c
}
