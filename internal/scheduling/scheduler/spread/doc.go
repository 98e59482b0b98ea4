// Package spread owns cluster selection: which of the ordered fitting
// clusters a binding goes to under its spread constraints. Without
// constraints (or under static weights) every cluster is selected; a
// region constraint picks a region combination and then clusters; a
// cluster constraint picks the first maxGroups clusters, swapping in
// clusters with more available replicas when the selection cannot hold
// the replicas. Zone and provider constraints only filter (see plugins).
package spread
