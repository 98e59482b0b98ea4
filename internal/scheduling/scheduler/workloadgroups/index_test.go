package workloadgroups

import (
	"slices"
	"sort"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// rb is the ResourceBinding of Deployment ns/name at generation gen, in
// the given groups, targeting clusters.
func rb(ns, name string, gen int64, affinity, anti string, clusters ...string) *workv1alpha2.ResourceBinding {
	b := &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: names.BindingName("Deployment", name), Generation: gen},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: ns, Name: name},
		},
	}
	if affinity != "" || anti != "" {
		b.Spec.WorkloadAffinityGroups = &workv1alpha2.WorkloadAffinityGroups{AffinityGroup: affinity, AntiAffinityGroup: anti}
	}
	for _, c := range clusters {
		b.Spec.Clusters = append(b.Spec.Clusters, workv1alpha2.TargetCluster{Name: c, Replicas: 1})
	}
	return b
}

func key(b *workv1alpha2.ResourceBinding) types.NamespacedName {
	return types.NamespacedName{Namespace: b.Namespace, Name: b.Name}
}

func sorted(m map[string]struct{}) []string {
	if m == nil {
		return nil
	}
	out := make([]string, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

func TestPeersAntiAffinity(t *testing.T) {
	x := New()
	x.Observe(rb("ns", "a", 1, "", "g=ha", "m1"))
	x.Observe(rb("ns", "b", 1, "", "g=ha", "m2", "m3"))
	x.Observe(rb("ns", "other-group", 1, "", "g=db", "m4"))
	x.Observe(rb("other-ns", "same-group", 1, "", "g=ha", "m5"))
	x.Observe(rb("ns", "unscheduled", 1, "", "g=ha"))

	// A new member must avoid every cluster of the group in its namespace.
	p := x.Peers(&rb("ns", "new", 1, "", "g=ha").Spec)
	if got := sorted(p.Separate); !slices.Equal(got, []string{"m1", "m2", "m3"}) {
		t.Errorf("separate from %v, want m1 m2 m3", got)
	}
	if p.Colocate != nil {
		t.Errorf("colocate %v without an affinity group", sorted(p.Colocate))
	}
	// A member is not its own peer.
	p = x.Peers(&rb("ns", "b", 1, "", "g=ha").Spec)
	if got := sorted(p.Separate); !slices.Equal(got, []string{"m1"}) {
		t.Errorf("b separate from %v, want m1", got)
	}
	// No groups, or a cluster-scoped resource: no constraint.
	if p := x.Peers(&rb("ns", "plain", 1, "", "").Spec); p != nil {
		t.Errorf("peers %+v for a binding without groups", p)
	}
	if p := x.Peers(&rb("", "cluster-scoped", 1, "", "g=ha").Spec); p != nil {
		t.Errorf("peers %+v for a cluster-scoped resource", p)
	}
}

func TestPeersAffinity(t *testing.T) {
	x := New()
	// The first member of a group goes anywhere.
	if p := x.Peers(&rb("ns", "first", 1, "g=train", "").Spec); p == nil || p.Colocate != nil {
		t.Fatalf("first member: %+v, want no colocation constraint", p)
	}
	x.Observe(rb("ns", "a", 1, "g=train", "", "m1", "m2", "m3"))
	x.Observe(rb("ns", "b", 1, "g=train", "", "m2", "m3"))
	x.Observe(rb("ns", "pending", 1, "g=train", "")) // no placement: ignored
	p := x.Peers(&rb("ns", "new", 1, "g=train", "").Spec)
	if got := sorted(p.Colocate); !slices.Equal(got, []string{"m2", "m3"}) {
		t.Errorf("colocate %v, want the clusters every placed member targets: m2 m3", got)
	}
	// For a, only b is a peer.
	p = x.Peers(&rb("ns", "a", 1, "g=train", "", "m1", "m2", "m3").Spec)
	if got := sorted(p.Colocate); !slices.Equal(got, []string{"m2", "m3"}) {
		t.Errorf("a colocates with %v, want m2 m3", got)
	}
	// Members without a common cluster leave an empty (not nil) set.
	x.Observe(rb("ns", "c", 1, "g=train", "", "m4"))
	if p := x.Peers(&rb("ns", "new", 1, "g=train", "").Spec); p.Colocate == nil || len(p.Colocate) != 0 {
		t.Errorf("colocate %v, want an empty set", sorted(p.Colocate))
	}
}

// A binding's change of groups or clusters, and its deletion, move its
// contribution.
func TestObserveReplacesAndForgetRemoves(t *testing.T) {
	x := New()
	a := rb("ns", "a", 1, "", "g=ha", "m1")
	x.Observe(a)
	x.Observe(rb("ns", "a", 2, "", "g=ha", "m2"))
	if got := sorted(x.Peers(&rb("ns", "new", 1, "", "g=ha").Spec).Separate); !slices.Equal(got, []string{"m2"}) {
		t.Errorf("after a moved: %v, want m2", got)
	}
	x.Observe(rb("ns", "a", 3, "", "", "m2"))
	if got := sorted(x.Peers(&rb("ns", "new", 1, "", "g=ha").Spec).Separate); len(got) != 0 {
		t.Errorf("after a left the group: %v, want none", got)
	}
	x.Observe(rb("ns", "a", 4, "", "g=ha", "m3"))
	x.Forget(key(a))
	if got := sorted(x.Peers(&rb("ns", "new", 1, "", "g=ha").Spec).Separate); len(got) != 0 {
		t.Errorf("after a was deleted: %v, want none", got)
	}
	if x.Len() != 0 {
		t.Errorf("%d bindings held, want 0", x.Len())
	}
}

// A decision counts at once, before the cache shows it; cache events older
// than the decision do not undo it; the cache takes over once it shows a
// later generation; undo restores what was counted before.
func TestAssume(t *testing.T) {
	x := New()
	a := rb("ns", "a", 1, "", "g=ha")
	x.Observe(a)
	x.Assume(key(a), a.Spec.WorkloadAffinityGroups, a.Generation, []workv1alpha2.TargetCluster{{Name: "m1", Replicas: 1}})
	peers := func() []string { return sorted(x.Peers(&rb("ns", "new", 1, "", "g=ha").Spec).Separate) }
	if got := peers(); !slices.Equal(got, []string{"m1"}) {
		t.Fatalf("after the decision: %v, want m1", got)
	}
	// A status-only event of the version the decision was based on.
	x.Observe(rb("ns", "a", 1, "", "g=ha"))
	if got := peers(); !slices.Equal(got, []string{"m1"}) {
		t.Errorf("a stale event undid the decision: %v", got)
	}
	// The written decision (next generation), then someone else's move.
	x.Observe(rb("ns", "a", 2, "", "g=ha", "m1"))
	x.Observe(rb("ns", "a", 3, "", "g=ha", "m2"))
	if got := peers(); !slices.Equal(got, []string{"m2"}) {
		t.Errorf("after the cache caught up: %v, want m2", got)
	}

	b := rb("ns", "b", 1, "", "g=ha", "m3")
	x.Observe(b)
	undo := x.Assume(key(b), b.Spec.WorkloadAffinityGroups, b.Generation, []workv1alpha2.TargetCluster{{Name: "m4", Replicas: 1}})
	if got := peers(); !slices.Equal(got, []string{"m2", "m4"}) {
		t.Errorf("b assumed on m4: %v", got)
	}
	undo()
	if got := peers(); !slices.Equal(got, []string{"m2", "m3"}) {
		t.Errorf("after undo: %v, want b back on m3", got)
	}
}

// Many members on the same clusters: every one counts, none is lost.
func TestPeersOfALargeGroup(t *testing.T) {
	x := New()
	for i := range 1000 {
		x.Observe(rb("ns", "w"+strconv.Itoa(i), 1, "g=train", "g=ha", "m1", "m2"))
	}
	x.Forget(types.NamespacedName{Namespace: "ns", Name: names.BindingName("Deployment", "w7")})
	p := x.Peers(&rb("ns", "new", 1, "g=train", "g=ha").Spec)
	if got := sorted(p.Colocate); !slices.Equal(got, []string{"m1", "m2"}) {
		t.Errorf("colocate %v", got)
	}
	if got := sorted(p.Separate); !slices.Equal(got, []string{"m1", "m2"}) {
		t.Errorf("separate %v", got)
	}
	if x.Len() != 999 {
		t.Errorf("%d bindings held, want 999", x.Len())
	}
}
