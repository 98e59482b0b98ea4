package framework

import (
	"slices"
	"testing"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

func TestFitErrorSortsReasonsAsStrings(t *testing.T) {
	err := &FitError{NumAllClusters: 12, Reasons: map[string]int{"b reason": 2, "a reason": 10}}
	// Karmada sorts the "count reason" strings, so "10 ..." precedes "2 ...".
	if got := err.Error(); got != "0/12 clusters are available: 10 a reason, 2 b reason." {
		t.Errorf("got %q", got)
	}
	if !IsFitError(err) || IsUnschedulable(err) {
		t.Error("type checks")
	}
}

func TestCompare(t *testing.T) {
	c := func(name string, overflow int, score, available int64) ClusterDetail {
		return ClusterDetail{Cluster: &clusterv1alpha1.Cluster{}, OverflowOrder: overflow, Score: score, AvailableReplicas: available}.named(name)
	}
	ds := []ClusterDetail{c("e", 1, 100, 9), c("d", 0, 0, 1), c("c", 0, 0, 5), c("b", 0, 100, 0), c("a", 0, 0, 5)}
	slices.SortFunc(ds, Compare)
	var got []string
	for _, d := range ds {
		got = append(got, d.Name())
	}
	if want := []string{"b", "a", "c", "d", "e"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v (overflow asc, score desc, available desc, name)", got, want)
	}
}

func (d ClusterDetail) named(name string) ClusterDetail {
	d.Cluster.Name = name
	return d
}
