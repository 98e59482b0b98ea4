package framework

import (
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// FilterPlugin decides whether a cluster can take the binding. It returns
// "" when the cluster fits, otherwise the failure reason reported in the
// FitError (e.g. "cluster(s) did not have the API resource").
type FilterPlugin interface {
	Name() string
	Filter(b *BindingInfo, cluster *clusterv1alpha1.Cluster) (reason string)
}

// ScorePlugin scores a fitting cluster; the scores of all plugins add up
// (weight 1 each).
type ScorePlugin interface {
	Name() string
	Score(b *BindingInfo, cluster *clusterv1alpha1.Cluster) int64
}
