package core

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/estimator"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/plugins"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/workloadgroups"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// groupScheduler schedules with the WorkloadAffinity gate on and records
// each decision in its index, as the controller does.
type groupScheduler struct {
	t        *testing.T
	s        *Scheduler
	index    *workloadgroups.Index
	clusters []*clusterv1alpha1.Cluster
}

func newGroupScheduler(t *testing.T, clusters ...*clusterv1alpha1.Cluster) *groupScheduler {
	set, err := plugins.Parse(nil, true)
	if err != nil {
		t.Fatal(err)
	}
	index := workloadgroups.New()
	return &groupScheduler{t: t, index: index, clusters: clusters,
		s: &Scheduler{Plugins: set, Estimator: estimator.Default(), WorkloadPeers: index}}
}

// schedule places Deployment name in the given groups with placement p
// and records the decision; it returns the chosen cluster names.
func (g *groupScheduler) schedule(name, affinity, anti string, p *policyv1alpha1.Placement) (string, error) {
	g.t.Helper()
	spec := st.Spec(1, p)
	spec.Resource.Name = name
	spec.WorkloadAffinityGroups = &workv1alpha2.WorkloadAffinityGroups{AffinityGroup: affinity, AntiAffinityGroup: anti}
	res, err := g.s.Schedule(spec, noStatus, g.clusters)
	if err == nil {
		key := types.NamespacedName{Namespace: spec.Resource.Namespace, Name: names.BindingName(spec.Resource.Kind, name)}
		g.index.Assume(key, spec.WorkloadAffinityGroups, 1, res.Clusters)
	}
	return st.Format(res.Clusters), err
}

func oneCluster(only ...string) *policyv1alpha1.Placement {
	p := &policyv1alpha1.Placement{SpreadConstraints: []policyv1alpha1.SpreadConstraint{{SpreadByField: policyv1alpha1.SpreadByFieldCluster, MinGroups: 1, MaxGroups: 1}}}
	if len(only) > 0 {
		p.ClusterAffinity = &policyv1alpha1.ClusterAffinity{ClusterNames: only}
	}
	return p
}

func TestWorkloadAntiAffinitySpreadsAGroup(t *testing.T) {
	g := newGroupScheduler(t, st.Cluster("m1"), st.Cluster("m2"), st.Cluster("m3"))
	seen := map[string]bool{}
	for _, name := range []string{"a", "b", "c"} {
		got, err := g.schedule(name, "", "app=ha", oneCluster())
		if err != nil || seen[got] {
			t.Fatalf("%s: %q, %v; want a cluster of its own (taken: %v)", name, got, err, seen)
		}
		seen[got] = true
	}
	_, err := g.schedule("d", "", "app=ha", oneCluster())
	want := "0/3 clusters are available: 3 cluster already has workload with the same anti-affinity group."
	if !framework.IsFitError(err) || err.Error() != want {
		t.Fatalf("fourth member: %v\nwant %s", err, want)
	}
	// Another group is not constrained.
	if got, err := g.schedule("e", "", "app=db", oneCluster()); err != nil || got != "m1:1" {
		t.Errorf("other group: %q, %v", got, err)
	}
}

func TestWorkloadAffinityColocatesAGroup(t *testing.T) {
	g := newGroupScheduler(t, st.Cluster("m1"), st.Cluster("m2"), st.Cluster("m3"))
	first, err := g.schedule("a", "app=train", "", oneCluster("m2", "m3"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"b", "c"} {
		if got, err := g.schedule(name, "app=train", "", oneCluster()); err != nil || got != first {
			t.Errorf("%s: %q, %v; want %q with the group", name, got, err, first)
		}
	}
	_, err = g.schedule("d", "app=train", "", oneCluster("m1"))
	want := "0/3 clusters are available: 1 ResourceBinding with the same affinity group does not target this cluster, 2 cluster(s) did not match the placement cluster affinity constraint."
	if !framework.IsFitError(err) || err.Error() != want {
		t.Fatalf("member confined elsewhere: %v\nwant %s", err, want)
	}
}

// Karmada's e2e case: one of two workloads bound to the same cluster by
// affinity with a third and anti-affinity with each other stays unplaced.
func TestWorkloadAffinityAndAntiAffinityTogether(t *testing.T) {
	g := newGroupScheduler(t, st.Cluster("m1"), st.Cluster("m2"))
	if got, err := g.schedule("dep1", "aff=mix", "", oneCluster("m1")); err != nil || got != "m1:1" {
		t.Fatalf("dep1: %q, %v", got, err)
	}
	if got, err := g.schedule("dep2", "", "anti=mix", oneCluster("m1")); err != nil || got != "m1:1" {
		t.Fatalf("dep2: %q, %v", got, err)
	}
	if got, err := g.schedule("dep3", "aff=mix", "anti=mix", oneCluster("m1")); !framework.IsFitError(err) {
		t.Fatalf("dep3: %q, %v; want no cluster to fit", got, err)
	}
}

// Without peers (the gate off) the filters are absent and the same
// decisions ignore the groups.
func TestWorkloadGroupsIgnoredWithoutTheGate(t *testing.T) {
	s := New()
	for _, name := range []string{"a", "b"} {
		spec := st.Spec(1, oneCluster())
		spec.Resource.Name = name
		spec.WorkloadAffinityGroups = &workv1alpha2.WorkloadAffinityGroups{AntiAffinityGroup: "app=ha"}
		res, err := s.Schedule(spec, noStatus, []*clusterv1alpha1.Cluster{st.Cluster("m1"), st.Cluster("m2")})
		if err != nil || st.Format(res.Clusters) != "m1:1" {
			t.Fatalf("%s: %q, %v", name, st.Format(res.Clusters), err)
		}
	}
}
