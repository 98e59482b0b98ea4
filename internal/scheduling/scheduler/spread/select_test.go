package spread

import (
	"strings"
	"testing"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

type cl struct {
	name      string
	region    string
	score     int64
	available int64
}

func ordered(cs ...cl) []framework.ClusterDetail {
	out := make([]framework.ClusterDetail, len(cs))
	for i, c := range cs {
		out[i] = framework.ClusterDetail{Cluster: st.Cluster(c.name, st.Location("p", c.region)), Score: c.score, AvailableReplicas: c.available, AllocatableReplicas: c.available}
	}
	return out
}

func names(ds []framework.ClusterDetail) string {
	var s []string
	for _, d := range ds {
		s = append(s, d.Name())
	}
	return strings.Join(s, ",")
}

func constraints(scs ...policyv1alpha1.SpreadConstraint) []policyv1alpha1.SpreadConstraint {
	return scs
}

func byField(f policyv1alpha1.SpreadFieldValue, minG, maxG int) policyv1alpha1.SpreadConstraint {
	return policyv1alpha1.SpreadConstraint{SpreadByField: f, MinGroups: minG, MaxGroups: maxG}
}

func TestSelectWithoutConstraintsTakesAll(t *testing.T) {
	spec := st.Spec(3, st.Dynamic(false))
	got, err := Select(spec, ordered(cl{name: "a"}, cl{name: "b"}))
	if err != nil || names(got) != "a,b" {
		t.Fatalf("got %s, %v", names(got), err)
	}
}

func TestStaticWeightsIgnoreSpreadConstraints(t *testing.T) {
	p := st.Static([]string{"a", "b", "c"}, 1, 1, 1)
	p.SpreadConstraints = constraints(byField(policyv1alpha1.SpreadByFieldCluster, 1, 1))
	got, err := Select(st.Spec(3, p), ordered(cl{name: "a"}, cl{name: "b"}, cl{name: "c"}))
	if err != nil || names(got) != "a,b,c" {
		t.Fatalf("static weights must ignore spread constraints: got %s, %v", names(got), err)
	}
}

func TestClusterConstraint(t *testing.T) {
	cs := ordered(cl{name: "a", available: 1}, cl{name: "b", available: 1}, cl{name: "c", available: 5}, cl{name: "d", available: 3})
	tests := []struct {
		name     string
		p        *policyv1alpha1.Placement
		replicas int32
		want     string
		wantErr  string
	}{
		{"duplicated takes the first maxGroups", &policyv1alpha1.Placement{}, 10, "a,b", ""},
		{"enough resources keeps the order", st.Dynamic(false), 2, "a,b", ""},
		{"swap from the last position with the most available", st.Dynamic(false), 6, "a,c", ""},
		{"keep swapping backwards", st.Dynamic(false), 8, "d,c", ""},
		{"not enough even after swapping", st.Dynamic(false), 9, "", "no enough resource when selecting 2 clusters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.p.SpreadConstraints = constraints(byField(policyv1alpha1.SpreadByFieldCluster, 1, 2))
			got, err := Select(st.Spec(tt.replicas, tt.p), cs)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || names(got) != tt.want {
				t.Fatalf("got %s, %v; want %s", names(got), err, tt.want)
			}
		})
	}
}

func TestClusterConstraintGroups(t *testing.T) {
	cs := ordered(cl{name: "a"}, cl{name: "b"})
	p := &policyv1alpha1.Placement{SpreadConstraints: constraints(byField(policyv1alpha1.SpreadByFieldCluster, 3, 5))}
	if _, err := Select(st.Spec(1, p), cs); err == nil || !strings.Contains(err.Error(), "less than spreadConstraint.MinGroups") {
		t.Errorf("minGroups above the cluster count: err = %v", err)
	}
	p.SpreadConstraints = constraints(byField(policyv1alpha1.SpreadByFieldCluster, 0, 0))
	if got, err := Select(st.Spec(1, p), cs); err != nil || len(got) != 0 {
		t.Errorf("maxGroups 0 selects nothing: got %s, %v", names(got), err)
	}
}

func TestUnsupportedConstraints(t *testing.T) {
	p := &policyv1alpha1.Placement{SpreadConstraints: constraints(policyv1alpha1.SpreadConstraint{SpreadByLabel: "team", MinGroups: 1, MaxGroups: 2})}
	if _, err := Select(st.Spec(1, p), ordered(cl{name: "a"})); err == nil || err.Error() != "just support cluster and region spread constraint" {
		t.Errorf("spreadByLabel: err = %v", err)
	}
	p.SpreadConstraints = constraints(byField(policyv1alpha1.SpreadByFieldZone, 1, 2))
	if _, err := Select(st.Spec(1, p), ordered(cl{name: "a"})); err == nil {
		t.Errorf("zone-only constraint must fail selection")
	}
}

func regionClusters() []framework.ClusterDetail {
	// Scheduler order: by score then available.
	return ordered(
		cl{"e1", "east", 100, 4}, cl{"w1", "west", 100, 2},
		cl{"e2", "east", 0, 6}, cl{"n1", "north", 0, 5}, cl{"w2", "west", 0, 1}, cl{"s1", "south", 0, 1},
	)
}

func TestRegionConstraint(t *testing.T) {
	tests := []struct {
		name    string
		p       *policyv1alpha1.Placement
		region  policyv1alpha1.SpreadConstraint
		cluster policyv1alpha1.SpreadConstraint
		want    string
	}{
		// Duplicated, 2 replicas: east scores 2×1000+50, west 1000+100,
		// north 1000, south 0. Two regions: east+west.
		{"duplicated: two best regions, one cluster each", &policyv1alpha1.Placement{},
			byField(policyv1alpha1.SpreadByFieldRegion, 1, 2), byField(policyv1alpha1.SpreadByFieldCluster, 1, 2), "e1,w1"},
		{"fill up to cluster maxGroups from the rest by score, available, name", &policyv1alpha1.Placement{},
			byField(policyv1alpha1.SpreadByFieldRegion, 1, 2), byField(policyv1alpha1.SpreadByFieldCluster, 1, 4), "e1,w1,e2,w2"},
		{"one region", &policyv1alpha1.Placement{},
			byField(policyv1alpha1.SpreadByFieldRegion, 1, 1), byField(policyv1alpha1.SpreadByFieldCluster, 1, 3), "e1,e2"},
		// Divided 8 replicas over ≥2 regions: target 4 per region; east
		// 4000+100 (e1 alone), north 4000, west 3000+50, south 1000.
		{"divided: regions by replica capacity", st.Dynamic(false),
			byField(policyv1alpha1.SpreadByFieldRegion, 2, 2), byField(policyv1alpha1.SpreadByFieldCluster, 2, 2), "n1,e1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.p.SpreadConstraints = constraints(tt.region, tt.cluster)
			replicas := int32(2)
			if tt.p.ReplicaScheduling != nil {
				replicas = 8
			}
			got, err := Select(st.Spec(replicas, tt.p), regionClusters())
			if err != nil || names(got) != tt.want {
				t.Fatalf("got %s, %v; want %s", names(got), err, tt.want)
			}
		})
	}
}

func TestRegionConstraintMinimums(t *testing.T) {
	p := &policyv1alpha1.Placement{SpreadConstraints: constraints(byField(policyv1alpha1.SpreadByFieldRegion, 5, 6), byField(policyv1alpha1.SpreadByFieldCluster, 1, 6))}
	if _, err := Select(st.Spec(1, p), regionClusters()); err == nil || !strings.Contains(err.Error(), "feasible region") {
		t.Errorf("more regions required than exist: err = %v", err)
	}
	// At most two regions but at least 5 clusters: the largest pair
	// (east+west) has 4.
	p.SpreadConstraints = constraints(byField(policyv1alpha1.SpreadByFieldRegion, 1, 2), byField(policyv1alpha1.SpreadByFieldCluster, 5, 6))
	if _, err := Select(st.Spec(1, p), regionClusters()); err == nil {
		t.Errorf("cluster minGroups unreachable with 2 regions: want an error")
	}
}

func TestChooseRegionsPrefersScoreThenClusters(t *testing.T) {
	mk := func(name string, n int, score int64) region {
		r := region{name: name, score: score}
		for i := 0; i < n; i++ {
			r.clusters = append(r.clusters, framework.ClusterDetail{Cluster: &clusterv1alpha1.Cluster{}})
		}
		return r
	}
	regions := []region{mk("a", 1, 10), mk("b", 3, 10), mk("c", 2, 5), mk("d", 1, 20)}
	got := chooseRegions(regions, 1, 2, 0)
	if len(got) != 2 || got[0].name != "d" || got[1].name != "b" {
		t.Fatalf("got %v, want d then b (highest score, then more clusters)", got)
	}
	// With 5 clusters required only b+c (5) is feasible.
	if got := chooseRegions(regions, 1, 2, 5); len(got) != 2 || got[0].name != "c" || got[1].name != "b" {
		t.Fatalf("only b+c has 5 clusters; got %v", got)
	}
	if got := chooseRegions(regions, 1, 2, 6); got != nil {
		t.Fatalf("no pair has 6 clusters; got %v", got)
	}
	if got := chooseRegions(regions, 1, 0, 0); got != nil {
		t.Fatalf("region maxGroups 0 selects nothing; got %v", got)
	}
}
