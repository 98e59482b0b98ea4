package workloadgroups

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	"github.com/propel-mc/propel/internal/shared/templatebinding"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Index is the workload affinity group index. It is safe for concurrent
// use.
type Index struct {
	mu sync.Mutex
	// members holds the bindings in at least one group, by key.
	members map[types.NamespacedName]*member
	// affinity and anti tally the groups of each kind.
	affinity map[groupKey]*tally
	anti     map[groupKey]*tally
}

// groupKey is a group within a namespace: groups never span namespaces.
type groupKey struct {
	namespace, group string
}

// tally counts a group's members: those with a placement, and per cluster
// those targeting it.
type tally struct {
	placed    int
	onCluster map[string]int
}

// placement is a binding's groups and target clusters (each once).
type placement struct {
	affinity, anti string
	clusters       []string
}

type member struct {
	// observed is what the cache last showed.
	observed placement
	// assumed is the scheduler's decision until the cache shows a
	// generation later than basedOn.
	assumed *placement
	basedOn int64
	// counted is what the tallies hold for the member: assumed if set,
	// otherwise observed.
	counted placement
}

// New returns an empty index.
func New() *Index {
	return &Index{
		members:  map[types.NamespacedName]*member{},
		affinity: map[groupKey]*tally{},
		anti:     map[groupKey]*tally{},
	}
}

// Len is the number of bindings the index holds.
func (x *Index) Len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.members)
}

// Observe records a ResourceBinding as the cache shows it. It ends a
// decision the binding's generation has moved past.
func (x *Index) Observe(rb *workv1alpha2.ResourceBinding) {
	key := types.NamespacedName{Namespace: rb.Namespace, Name: rb.Name}
	p := placementOf(rb.Spec.WorkloadAffinityGroups, rb.Spec.Clusters)
	x.mu.Lock()
	defer x.mu.Unlock()
	m := x.members[key]
	if m == nil {
		if p.empty() {
			return
		}
		m = &member{}
		x.members[key] = m
	}
	m.observed = p
	if m.assumed != nil && rb.Generation > m.basedOn {
		m.assumed = nil
	}
	x.recount(key, m)
}

// Forget drops a deleted binding.
func (x *Index) Forget(key types.NamespacedName) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if m := x.members[key]; m != nil {
		x.count(key.Namespace, m.counted, -1)
		delete(x.members, key)
	}
}

// Assume counts the scheduler's decision for the binding at key (in
// groups, at generation basedOn) before the cache shows it. The returned
// undo restores what was counted before, for a decision that could not be
// written.
func (x *Index) Assume(key types.NamespacedName, groups *workv1alpha2.WorkloadAffinityGroups, basedOn int64, clusters []workv1alpha2.TargetCluster) (undo func()) {
	p := placementOf(groups, clusters)
	x.mu.Lock()
	defer x.mu.Unlock()
	m := x.members[key]
	if m == nil {
		if p.empty() {
			return func() {}
		}
		m = &member{}
		x.members[key] = m
	}
	prev, prevBasedOn := m.assumed, m.basedOn
	m.assumed, m.basedOn = &p, basedOn
	x.recount(key, m)
	return func() {
		x.mu.Lock()
		defer x.mu.Unlock()
		// The binding may have been deleted meanwhile.
		if cur := x.members[key]; cur == m {
			m.assumed, m.basedOn = prev, prevBasedOn
			x.recount(key, m)
		}
	}
}

// Peers implements framework.WorkloadPeerLookup: where the other members
// of the binding's groups in its namespace run. Nil for a binding without
// groups or of a cluster-scoped resource (groups belong to
// ResourceBindings only). The binding is identified by its generated
// name, as Karmada's filters identify it.
func (x *Index) Peers(spec *workv1alpha2.ResourceBindingSpec) *framework.WorkloadPeers {
	g := spec.WorkloadAffinityGroups
	ns := spec.Resource.Namespace
	if g == nil || (g.AffinityGroup == "" && g.AntiAffinityGroup == "") || ns == "" {
		return nil
	}
	self := templatebinding.Key(ns, spec.Resource.Kind, spec.Resource.Name)
	x.mu.Lock()
	defer x.mu.Unlock()
	var own placement
	if m := x.members[self]; m != nil {
		own = m.counted
	}
	ownClusters := make(map[string]struct{}, len(own.clusters))
	for _, c := range own.clusters {
		ownClusters[c] = struct{}{}
	}
	// ownOn is the binding's own count on cluster c in a group it is
	// counted in (in is true).
	ownOn := func(in bool, c string) int {
		if _, ok := ownClusters[c]; in && ok {
			return 1
		}
		return 0
	}
	peers := &framework.WorkloadPeers{}
	if g.AffinityGroup != "" {
		if t := x.affinity[groupKey{ns, g.AffinityGroup}]; t != nil {
			in := own.affinity == g.AffinityGroup
			others := t.placed
			if in && len(own.clusters) > 0 {
				others--
			}
			if others > 0 {
				peers.Colocate = map[string]struct{}{}
				for c, n := range t.onCluster {
					if n-ownOn(in, c) == others {
						peers.Colocate[c] = struct{}{}
					}
				}
			}
		}
	}
	if g.AntiAffinityGroup != "" {
		if t := x.anti[groupKey{ns, g.AntiAffinityGroup}]; t != nil {
			in := own.anti == g.AntiAffinityGroup
			for c, n := range t.onCluster {
				if n-ownOn(in, c) > 0 {
					if peers.Separate == nil {
						peers.Separate = map[string]struct{}{}
					}
					peers.Separate[c] = struct{}{}
				}
			}
		}
	}
	return peers
}

// recount replaces the member's counted placement by its current one and
// drops a member left in no group.
func (x *Index) recount(key types.NamespacedName, m *member) {
	x.count(key.Namespace, m.counted, -1)
	m.counted = m.observed
	if m.assumed != nil {
		m.counted = *m.assumed
	}
	x.count(key.Namespace, m.counted, 1)
	if m.assumed == nil && m.observed.empty() {
		delete(x.members, key)
	}
}

// count adds (sign 1) or removes (sign -1) a placement from the tallies
// of its groups, deleting tallies that reach zero.
func (x *Index) count(ns string, p placement, sign int) {
	if p.affinity != "" {
		add(x.affinity, groupKey{ns, p.affinity}, p.clusters, sign)
	}
	if p.anti != "" {
		add(x.anti, groupKey{ns, p.anti}, p.clusters, sign)
	}
}

func add(tallies map[groupKey]*tally, k groupKey, clusters []string, sign int) {
	t := tallies[k]
	if t == nil {
		if sign < 0 || len(clusters) == 0 {
			return
		}
		t = &tally{onCluster: map[string]int{}}
		tallies[k] = t
	}
	if len(clusters) > 0 {
		t.placed += sign
	}
	for _, c := range clusters {
		if t.onCluster[c] += sign; t.onCluster[c] == 0 {
			delete(t.onCluster, c)
		}
	}
	if t.placed == 0 {
		delete(tallies, k)
	}
}

// placementOf builds a placement; a binding without groups has an empty
// one, whatever its clusters.
func placementOf(g *workv1alpha2.WorkloadAffinityGroups, targets []workv1alpha2.TargetCluster) placement {
	if g == nil || (g.AffinityGroup == "" && g.AntiAffinityGroup == "") {
		return placement{}
	}
	p := placement{affinity: g.AffinityGroup, anti: g.AntiAffinityGroup}
	seen := make(map[string]struct{}, len(targets))
	for _, tc := range targets {
		if _, dup := seen[tc.Name]; !dup {
			seen[tc.Name] = struct{}{}
			p.clusters = append(p.clusters, tc.Name)
		}
	}
	return p
}

func (p placement) empty() bool { return p.affinity == "" && p.anti == "" }
