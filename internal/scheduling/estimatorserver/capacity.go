package estimatorserver

import (
	"context"
	"math"

	corev1 "k8s.io/api/core/v1"
)

// nodeCapacity is what is left on one node.
type nodeCapacity struct {
	node *corev1.Node
	free map[corev1.ResourceName]int64
	pods int64
}

// fit is how many replicas needing r the node still holds.
func (c *nodeCapacity) fit(r *requirement) int64 {
	k := c.pods
	for name, need := range r.request {
		if name == corev1.ResourcePods {
			continue
		}
		k = min(k, c.free[name]/need)
	}
	return max(k, 0)
}

// take subtracts k replicas needing r.
func (c *nodeCapacity) take(r *requirement, k int64) {
	c.pods -= k
	for name, need := range r.request {
		if name != corev1.ResourcePods {
			c.free[name] -= k * need
		}
	}
}

// place packs up to want replicas needing r first-fit onto the fitting
// nodes and returns how many were placed.
func place(ctx context.Context, nodes []nodeCapacity, r *requirement, want int64) (int64, error) {
	placed := int64(0)
	for i := range nodes {
		if placed >= want {
			break
		}
		if err := interrupted(ctx); err != nil {
			return 0, err
		}
		if !r.fits(nodes[i].node) {
			continue
		}
		k := min(nodes[i].fit(r), want-placed)
		if k > 0 {
			nodes[i].take(r, k)
			placed += k
		}
	}
	return placed, nil
}

// maxReplicas is the sum of what every fitting node holds, at most
// MaxInt32.
func maxReplicas(ctx context.Context, nodes []nodeCapacity, r *requirement) (int64, error) {
	total := int64(0)
	for i := range nodes {
		if err := interrupted(ctx); err != nil {
			return 0, err
		}
		if r.fits(nodes[i].node) {
			total = min(total+min(nodes[i].fit(r), math.MaxInt32), math.MaxInt32)
		}
	}
	return total, nil
}

// component is one decoded component of a set.
type component struct {
	req      *requirement
	replicas int64
}

// maxSets is the largest s such that a first-fit packing places s ×
// replicas of every component, found by binary search between 0 and the
// bound each component gives alone.
func maxSets(ctx context.Context, nodes []nodeCapacity, comps []component) (int64, error) {
	upper := int64(math.MaxInt32)
	for _, c := range comps {
		if c.replicas > 0 {
			n, err := maxReplicas(ctx, nodes, c.req)
			if err != nil {
				return 0, err
			}
			upper = min(upper, n/c.replicas)
		}
	}
	feasible := func(s int64) (bool, error) {
		trial := clone(nodes)
		for _, c := range comps {
			if c.replicas <= 0 {
				continue
			}
			placed, err := place(ctx, trial, c.req, s*c.replicas)
			if err != nil || placed < s*c.replicas {
				return false, err
			}
		}
		return true, nil
	}
	lo, hi := int64(0), upper
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		ok, err := feasible(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, nil
}

func clone(nodes []nodeCapacity) []nodeCapacity {
	out := make([]nodeCapacity, len(nodes))
	for i, n := range nodes {
		free := make(map[corev1.ResourceName]int64, len(n.free))
		for k, v := range n.free {
			free[k] = v
		}
		out[i] = nodeCapacity{node: n.node, free: free, pods: n.pods}
	}
	return out
}
