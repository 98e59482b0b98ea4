package framework

import (
	"cmp"
	"strings"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// InvalidReplicas marks "no available-resource check" in cluster selection.
const InvalidReplicas int64 = -1

// ClusterDetail is one fitting cluster with what ordering, selection and
// assignment need to know about it.
type ClusterDetail struct {
	Cluster *clusterv1alpha1.Cluster
	// Score is the sum of the score plugins.
	Score int64
	// OverflowOrder is 0 for the observing affinity term's primary
	// clusters, i+1 for overflowAffinities[i] and 1000 for others.
	OverflowOrder int
	// AllocatableReplicas is the estimated number of new replicas the
	// cluster can hold.
	AllocatableReplicas int64
	// AvailableReplicas is AllocatableReplicas plus the replicas already
	// assigned to the cluster.
	AvailableReplicas int64
}

// Name is the cluster's name.
func (d *ClusterDetail) Name() string { return d.Cluster.Name }

// Compare is the scheduler's cluster order for slices.SortFunc: overflow
// order ascending, score descending, available replicas descending, name
// ascending.
func Compare(a, b ClusterDetail) int {
	switch {
	case a.OverflowOrder != b.OverflowOrder:
		return cmp.Compare(a.OverflowOrder, b.OverflowOrder)
	case a.Score != b.Score:
		return cmp.Compare(b.Score, a.Score)
	case a.AvailableReplicas != b.AvailableReplicas:
		return cmp.Compare(b.AvailableReplicas, a.AvailableReplicas)
	}
	return strings.Compare(a.Cluster.Name, b.Cluster.Name)
}
