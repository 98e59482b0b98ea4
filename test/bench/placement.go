package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// Placements (-placement): every Deployment to every member (one policy,
// the default), each to a pseudo-random subset of members, or subsets
// with Duplicated and weighted Divided policies in turn.
const (
	placementAll    = "all"
	placementSubset = "subset"
	placementMixed  = "mixed"
)

// placementGroups bounds the policies of -placement subset and mixed: the
// Deployments are spread round robin over this many groups, each with its
// own policy and cluster subset, so the policy count (which the detector
// matches against) stays that of a real control plane, not one per
// Deployment.
const placementGroups = 100

// Subset sizes: between subsetMin and subsetMax clusters, fewer when
// there are fewer members.
const (
	subsetMin = 5
	subsetMax = 50
)

// groupLabel carries a Deployment's placement group.
const groupLabel = "bench-group"

func validPlacement(p string) error {
	switch p {
	case placementAll, placementSubset, placementMixed:
		return nil
	}
	return fmt.Errorf("-placement %q: want %s, %s or %s", p, placementAll, placementSubset, placementMixed)
}

// placementGroupCount is how many policies place n Deployments.
func placementGroupCount(placement string, n int) int {
	if placement == placementAll {
		return 1
	}
	return max(1, min(n, placementGroups))
}

// subsetClusters is group's clusters: a pseudo-random choice of
// subsetMin..min(subsetMax, members) distinct members (all of them when
// there are at most subsetMin), the same for the same group and member
// count on every run.
func subsetClusters(group, members int) []string {
	rng := rand.New(rand.NewPCG(uint64(group), uint64(members)))
	hi := min(subsetMax, members)
	size := min(subsetMin, members)
	if hi > size {
		size += rng.IntN(hi - size + 1)
	}
	names := make([]string, size)
	for i, m := range rng.Perm(members)[:size] {
		names[i] = memberName(m + 1)
	}
	return names
}

func memberName(i int) string { return fmt.Sprintf("member%d", i) }

// divided reports whether group's policy divides replicas (-placement
// mixed: every other group).
func divided(placement string, group int) bool {
	return placement == placementMixed && group%2 == 1
}

// groupPolicy is the policy of one placement group; for placementAll the
// benchmark's original single policy.
func groupPolicy(placement string, group, members int) *policyv1alpha1.PropagationPolicy {
	pol := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "bench"},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment",
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"bench": "true"}}}},
		},
	}
	if placement == placementAll {
		return pol
	}
	g := strconv.Itoa(group)
	pol.Name = "bench-group-" + g
	pol.Spec.ResourceSelectors[0].LabelSelector.MatchLabels[groupLabel] = g
	clusters := subsetClusters(group, members)
	pol.Spec.Placement.ClusterAffinity = &policyv1alpha1.ClusterAffinity{ClusterNames: clusters}
	if !divided(placement, group) {
		return pol
	}
	weights := make([]policyv1alpha1.StaticClusterWeight, len(clusters))
	for i, c := range clusters {
		weights[i] = policyv1alpha1.StaticClusterWeight{
			TargetCluster: policyv1alpha1.ClusterAffinity{ClusterNames: []string{c}},
			Weight:        int64(1 + i%3),
		}
	}
	pol.Spec.Placement.ReplicaScheduling = &policyv1alpha1.ReplicaSchedulingStrategy{
		ReplicaSchedulingType:     policyv1alpha1.ReplicaSchedulingTypeDivided,
		ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted,
		WeightPreference:          &policyv1alpha1.ClusterPreferences{StaticWeightList: weights},
	}
	return pol
}

// benchDeployment is Deployment i of n. Under a Divided policy it has two
// replicas per cluster of its group, so that every cluster can get some.
func benchDeployment(placement string, i, groups, members int) *appsv1.Deployment {
	name := fmt.Sprintf("bench-%d", i)
	if placement == placementAll {
		return harness.Deployment("default", name, map[string]string{"bench": "true"})
	}
	group := i % groups
	d := harness.Deployment("default", name, map[string]string{"bench": "true", groupLabel: strconv.Itoa(group)})
	if divided(placement, group) {
		d.Spec.Replicas = ptr.To(int32(2 * len(subsetClusters(group, members))))
	}
	return d
}
