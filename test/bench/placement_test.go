package main

import (
	"fmt"
	"slices"
	"testing"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

func TestSubsetClustersSizeDistinctAndStable(t *testing.T) {
	for _, members := range []int{3, 5, 7, 60, 200} {
		lo, hi := min(subsetMin, members), min(subsetMax, members)
		for g := range 50 {
			got := subsetClusters(g, members)
			if len(got) < lo || len(got) > hi {
				t.Fatalf("members %d group %d: %d clusters, want %d..%d", members, g, len(got), lo, hi)
			}
			seen := map[string]bool{}
			for _, c := range got {
				if seen[c] {
					t.Fatalf("members %d group %d: %s twice in %v", members, g, c, got)
				}
				seen[c] = true
				var i int
				if _, err := fmt.Sscanf(c, "member%d", &i); err != nil || i < 1 || i > members {
					t.Fatalf("members %d group %d: %q is not a member", members, g, c)
				}
			}
			if again := subsetClusters(g, members); !slices.Equal(got, again) {
				t.Fatalf("members %d group %d: %v then %v", members, g, got, again)
			}
		}
	}
}

func TestSubsetClustersVary(t *testing.T) {
	sizes := map[int]bool{}
	for g := range 100 {
		sizes[len(subsetClusters(g, 100))] = true
	}
	if len(sizes) < 10 {
		t.Fatalf("100 groups over 100 members got only %d distinct subset sizes", len(sizes))
	}
}

func TestGroupPolicyAllIsTheOriginalPolicy(t *testing.T) {
	pol := groupPolicy(placementAll, 0, 3)
	if pol.Name != "bench" || pol.Spec.Placement.ClusterAffinity != nil || pol.Spec.Placement.ReplicaScheduling != nil {
		t.Fatalf("all: %+v", pol)
	}
	if got := pol.Spec.ResourceSelectors[0].LabelSelector.MatchLabels; len(got) != 1 || got["bench"] != "true" {
		t.Fatalf("all selects %v", got)
	}
	if placementGroupCount(placementAll, 1000) != 1 {
		t.Fatal("all must make one policy")
	}
	d := benchDeployment(placementAll, 7, 1, 3)
	if d.Name != "bench-7" || len(d.Labels) != 1 || *d.Spec.Replicas != 2 {
		t.Fatalf("all: deployment %s labels %v replicas %d", d.Name, d.Labels, *d.Spec.Replicas)
	}
}

func TestMixedAlternatesDuplicatedAndWeightedDivided(t *testing.T) {
	groups := placementGroupCount(placementMixed, 1000)
	if groups != placementGroups {
		t.Fatalf("groups %d, want %d", groups, placementGroups)
	}
	for g := range 4 {
		pol := groupPolicy(placementMixed, g, 20)
		clusters := pol.Spec.Placement.ClusterAffinity.ClusterNames
		if !slices.Equal(clusters, subsetClusters(g, 20)) {
			t.Fatalf("group %d: clusters %v", g, clusters)
		}
		rs := pol.Spec.Placement.ReplicaScheduling
		if g%2 == 0 {
			if rs != nil {
				t.Fatalf("group %d: want Duplicated (no replica scheduling), got %+v", g, rs)
			}
			continue
		}
		if rs == nil || rs.ReplicaSchedulingType != policyv1alpha1.ReplicaSchedulingTypeDivided ||
			rs.ReplicaDivisionPreference != policyv1alpha1.ReplicaDivisionPreferenceWeighted ||
			len(rs.WeightPreference.StaticWeightList) != len(clusters) {
			t.Fatalf("group %d: want weighted Divided over %d clusters, got %+v", g, len(clusters), rs)
		}
		d := benchDeployment(placementMixed, g+groups, groups, 20) // a Deployment of group g
		if d.Labels[groupLabel] != pol.Spec.ResourceSelectors[0].LabelSelector.MatchLabels[groupLabel] {
			t.Fatalf("group %d: deployment labels %v do not match %v", g, d.Labels, pol.Spec.ResourceSelectors[0].LabelSelector.MatchLabels)
		}
		if int(*d.Spec.Replicas) != 2*len(clusters) {
			t.Fatalf("group %d: %d replicas for %d clusters", g, *d.Spec.Replicas, len(clusters))
		}
	}
	if placementGroupCount(placementSubset, 7) != 7 {
		t.Fatal("fewer Deployments than groups: one group each")
	}
}

func TestValidPlacement(t *testing.T) {
	for _, p := range []string{placementAll, placementSubset, placementMixed} {
		if err := validPlacement(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := validPlacement("some"); err == nil {
		t.Fatal("want an error for an unknown placement")
	}
}
