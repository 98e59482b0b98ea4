package plugins

import (
	"testing"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

func set(names ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(names))
	for _, n := range names {
		m[n] = struct{}{}
	}
	return m
}

func TestWorkloadAffinityFilters(t *testing.T) {
	m1, m2, m3 := st.Cluster("m1"), st.Cluster("m2"), st.Cluster("m3")
	tests := []struct {
		name    string
		peers   *framework.WorkloadPeers
		targets []string
		filter  framework.FilterPlugin
		want    map[*clusterv1alpha1.Cluster]string
	}{{
		name: "no groups: affinity passes everything", filter: WorkloadAffinity{},
		want: map[*clusterv1alpha1.Cluster]string{m1: "", m2: "", m3: ""},
	}, {
		name: "first of an affinity group goes anywhere", filter: WorkloadAffinity{},
		peers: &framework.WorkloadPeers{},
		want:  map[*clusterv1alpha1.Cluster]string{m1: "", m2: "", m3: ""},
	}, {
		name: "affinity keeps the clusters every peer targets", filter: WorkloadAffinity{},
		peers: &framework.WorkloadPeers{Colocate: set("m2")},
		want:  map[*clusterv1alpha1.Cluster]string{m1: ReasonAffinityGroupElsewhere, m2: "", m3: ReasonAffinityGroupElsewhere},
	}, {
		name: "peers with no common cluster leave only the binding's own", filter: WorkloadAffinity{},
		peers: &framework.WorkloadPeers{Colocate: set()}, targets: []string{"m3"},
		want: map[*clusterv1alpha1.Cluster]string{m1: ReasonAffinityGroupElsewhere, m2: ReasonAffinityGroupElsewhere, m3: ""},
	}, {
		name: "no groups: anti-affinity passes everything", filter: WorkloadAntiAffinity{},
		want: map[*clusterv1alpha1.Cluster]string{m1: "", m2: "", m3: ""},
	}, {
		name: "anti-affinity rejects clusters hosting a peer, except the binding's own", filter: WorkloadAntiAffinity{},
		peers: &framework.WorkloadPeers{Separate: set("m1", "m3")}, targets: []string{"m3"},
		want: map[*clusterv1alpha1.Cluster]string{m1: ReasonAntiAffinityGroupHere, m2: "", m3: ""},
	}, {
		name: "anti-affinity ignores the affinity peers", filter: WorkloadAntiAffinity{},
		peers: &framework.WorkloadPeers{Colocate: set("m1")},
		want:  map[*clusterv1alpha1.Cluster]string{m1: "", m2: "", m3: ""},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := info(&policyv1alpha1.Placement{}, targeting(tt.targets...))
			b.Peers = tt.peers
			for c, want := range tt.want {
				if got := tt.filter.Filter(b, c); got != want {
					t.Errorf("%s on %s: %q, want %q", tt.filter.Name(), c.Name, got, want)
				}
			}
		})
	}
}

func TestParseWorkloadAffinityGate(t *testing.T) {
	off, err := Parse([]string{"*"}, false)
	if err != nil || len(off.Filters) != 5 {
		t.Fatalf("gate off: %d filters, %v; want the 5 ungated ones", len(off.Filters), err)
	}
	on, err := Parse(nil, true)
	if err != nil || len(on.Filters) != 7 {
		t.Fatalf("gate on: %d filters, %v; want 7", len(on.Filters), err)
	}
	if on.Filters[5].Name() != WorkloadAffinityName || on.Filters[6].Name() != WorkloadAntiAffinityName {
		t.Errorf("gated filters %s, %s; want them last", on.Filters[5].Name(), on.Filters[6].Name())
	}
	// Karmada accepts the names whatever the gate; disabling them works.
	for _, gate := range []bool{false, true} {
		set, err := Parse([]string{"*", "-WorkloadAntiAffinity"}, gate)
		if err != nil {
			t.Fatalf("gate %v: %v", gate, err)
		}
		for _, f := range set.Filters {
			if f.Name() == WorkloadAntiAffinityName {
				t.Errorf("gate %v: WorkloadAntiAffinity must be disabled", gate)
			}
		}
	}
}
