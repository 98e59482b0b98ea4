// Package affinity owns cluster affinity matching (Karmada's
// ClusterMatches): exclude list, label selector, field selector over
// provider/region/zones, and cluster names, all ANDed. Affinities are
// compiled once per binding into Matchers so that filtering many clusters
// does not re-parse selectors. It also resolves a placement's effective
// affinity term (clusterAffinity, or the observed clusterAffinities term
// with its overflow affinities).
package affinity
