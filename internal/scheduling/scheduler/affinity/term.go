package affinity

import (
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// NoOverflowMatch is the overflow order of a cluster matching neither the
// primary affinity nor any overflow affinity.
const NoOverflowMatch = 1000

// Term is the effective affinity of one scheduling attempt: the primary
// affinity and, for workloads using clusterAffinities, its overflow
// affinities in order.
type Term struct {
	Primary  *Matcher
	Overflow []*Matcher
	// FromAffinities is set when the term comes from clusterAffinities
	// (overflow orders are only meaningful then).
	FromAffinities bool
}

// EffectiveTerm resolves the affinity the ClusterAffinity filter uses:
// placement.clusterAffinity, or the clusterAffinities term named
// affinityName plus its overflowAffinities when workload is true. It
// returns nil when there is no affinity (every cluster passes).
func EffectiveTerm(p *policyv1alpha1.Placement, affinityName string, workload bool) *Term {
	if p == nil {
		return nil
	}
	if p.ClusterAffinity != nil {
		return &Term{Primary: MustCompile(p.ClusterAffinity)}
	}
	for i := range p.ClusterAffinities {
		at := &p.ClusterAffinities[i]
		if at.AffinityName != affinityName {
			continue
		}
		t := &Term{Primary: MustCompile(&at.ClusterAffinity), FromAffinities: true}
		if workload {
			for j := range at.OverflowAffinities {
				t.Overflow = append(t.Overflow, MustCompile(&at.OverflowAffinities[j].ClusterAffinity))
			}
		}
		return t
	}
	return nil
}

// Matches reports whether c matches the primary or any overflow affinity.
func (t *Term) Matches(c *clusterv1alpha1.Cluster) bool {
	return t.OverflowOrder(c) != NoOverflowMatch
}

// OverflowOrder is 0 when c matches the primary affinity, i+1 when it
// matches Overflow[i] (the first that matches), and NoOverflowMatch
// otherwise. A term that is not from clusterAffinities always gives 0 for
// a matching cluster.
func (t *Term) OverflowOrder(c *clusterv1alpha1.Cluster) int {
	if t.Primary.Matches(c) {
		return 0
	}
	for i, m := range t.Overflow {
		if m.Matches(c) {
			return i + 1
		}
	}
	return NoOverflowMatch
}

// HasOverflow reports whether replicas are split into overflow tiers.
func (t *Term) HasOverflow() bool { return t != nil && t.FromAffinities && len(t.Overflow) > 0 }
