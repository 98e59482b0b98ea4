package estimatorserver

import (
	"context"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// nodeCapacity is what is left on one node.
type nodeCapacity struct {
	node *corev1.Node
	free resourceAmounts
	pods int64
}

// resourceAmount is an amount of one resource.
type resourceAmount struct {
	name  corev1.ResourceName
	value int64
}

// resourceAmounts is a node's amount of each resource it lists. A node
// lists a handful of resources, so a slice searched in order is cheaper
// than a map, and a snapshot keeps the amounts of all its nodes in one
// array rather than a map per node on every request.
type resourceAmounts []resourceAmount

// get is the amount of name, 0 when the node does not list it.
func (a resourceAmounts) get(name corev1.ResourceName) int64 {
	for i := range a {
		if a[i].name == name {
			return a[i].value
		}
	}
	return 0
}

// sub takes v from the amount of name when the node lists it.
func (a resourceAmounts) sub(name corev1.ResourceName, v int64) {
	for i := range a {
		if a[i].name == name {
			a[i].value -= v
			return
		}
	}
}

// fit is how many replicas needing r the node still holds.
func (c *nodeCapacity) fit(r *requirement) int64 {
	k := c.pods
	for name, need := range r.request {
		if name == corev1.ResourcePods {
			continue
		}
		k = min(k, c.free.get(name)/need)
	}
	return max(k, 0)
}

// take subtracts k replicas needing r.
func (c *nodeCapacity) take(r *requirement, k int64) {
	c.pods -= k
	for name, need := range r.request {
		if name != corev1.ResourcePods {
			c.free.sub(name, k*need)
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
		out[i] = nodeCapacity{node: n.node, free: slices.Clone(n.free), pods: n.pods}
	}
	return out
}
