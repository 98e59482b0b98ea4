package localup

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// TestTopologyOneNodePerMember: each member has one fake node, as each
// member of Karmada's e2e environment (a kind cluster) has, so a DaemonSet
// runs one pod per member; the members still differ in size and region.
func TestTopologyOneNodePerMember(t *testing.T) {
	members := Topology(4)
	cpus := map[string]bool{}
	for _, m := range members {
		if len(m.Nodes) != 1 {
			t.Errorf("%s has %d nodes, want 1", m.Name, len(m.Nodes))
			continue
		}
		n := m.Nodes[0]
		if n.Name != m.Name+"-node-1" || n.Labels["topology.kubernetes.io/region"] != m.Region || n.Labels["topology.kubernetes.io/zone"] != m.Zone {
			t.Errorf("%s: node %s labels %v, want %s-node-1 in region %s, zone %s", m.Name, n.Name, n.Labels, m.Name, m.Region, m.Zone)
		}
		if _, err := resource.ParseQuantity(n.CPU); err != nil {
			t.Errorf("%s: cpu %q: %v", m.Name, n.CPU, err)
		}
		cpus[n.CPU] = true
	}
	// Karmada's EstimatorAssumption node spec fills member1 with at most
	// 50 workloads of 200m.
	if q := resource.MustParse(members[0].Nodes[0].CPU); q.Cmp(resource.MustParse("10")) >= 0 {
		t.Errorf("member1's node has %s CPUs; 50 x 200m must not fit", q.String())
	}
	if len(cpus) < 3 {
		t.Errorf("the first three members' nodes have cpus %v, want three sizes", cpus)
	}
}
