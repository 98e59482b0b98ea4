package assign

import (
	"strings"
	"testing"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// details builds selected clusters from name/allocatable pairs.
func details(pairs ...any) []framework.ClusterDetail {
	var out []framework.ClusterDetail
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, framework.ClusterDetail{Cluster: st.Cluster(pairs[i].(string)), AllocatableReplicas: int64(pairs[i+1].(int)), AvailableReplicas: int64(pairs[i+1].(int))})
	}
	return out
}

func run(t *testing.T, spec *workv1alpha2.ResourceBindingSpec, clusters []framework.ClusterDetail, fresh bool) string {
	t.Helper()
	got, err := Assign(Request{Spec: spec, Replicas: spec.Replicas, Clusters: clusters, Previous: spec.Clusters, Fresh: fresh})
	if err != nil {
		t.Fatalf("Assign: %v", err)
	}
	return st.Format(got)
}

func TestStrategyOf(t *testing.T) {
	divided := func(pref policyv1alpha1.ReplicaDivisionPreference, wp *policyv1alpha1.ClusterPreferences) *policyv1alpha1.Placement {
		return &policyv1alpha1.Placement{ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{
			ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided, ReplicaDivisionPreference: pref, WeightPreference: wp}}
	}
	tests := []struct {
		p    *policyv1alpha1.Placement
		want Strategy
	}{
		{&policyv1alpha1.Placement{}, Duplicated},
		{&policyv1alpha1.Placement{ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDuplicated}}, Duplicated},
		{divided(policyv1alpha1.ReplicaDivisionPreferenceAggregated, nil), Aggregated},
		{divided(policyv1alpha1.ReplicaDivisionPreferenceWeighted, nil), StaticWeight},
		{divided(policyv1alpha1.ReplicaDivisionPreferenceWeighted, &policyv1alpha1.ClusterPreferences{DynamicWeight: "AvailableReplicas"}), DynamicWeight},
	}
	for _, tt := range tests {
		if got, err := StrategyOf(tt.p); err != nil || got != tt.want {
			t.Errorf("StrategyOf(%+v) = %v, %v; want %v", tt.p.ReplicaScheduling, got, err, tt.want)
		}
	}
	if _, err := StrategyOf(divided("", nil)); err == nil || !strings.Contains(err.Error(), "unsupported replica scheduling strategy") {
		t.Errorf("Divided without preference: err = %v, want unsupported replica scheduling strategy", err)
	}
}

func TestDuplicated(t *testing.T) {
	spec := st.Spec(3, &policyv1alpha1.Placement{})
	if got := run(t, spec, details("c", 0, "a", 0), false); got != "c:3 a:3" {
		t.Errorf("Duplicated = %q, want selection order with all replicas", got)
	}
	spec = st.CPURequest(st.Spec(0, &policyv1alpha1.Placement{}), "1", "1Gi")
	if got := run(t, spec, details("a", 1), false); got != "" {
		t.Errorf("Duplicated with 0 replicas and requests = %q, want empty (zero entries dropped)", got)
	}
}

func TestNonWorkloadListsClustersOnly(t *testing.T) {
	spec := st.Spec(0, st.Static([]string{"a", "b"}, 1, 1))
	if got := run(t, spec, details("a", 0, "b", 0), false); got != "a:0 b:0" {
		t.Errorf("non-workload = %q, want every selected cluster without replicas", got)
	}
}

func TestStaticWeight(t *testing.T) {
	tests := []struct {
		name     string
		replicas int32
		names    []string
		weights  []int64
		want     string
	}{
		{"2:1 of 3", 3, []string{"member1", "member2"}, []int64{2, 1}, "member1:2 member2:1"},
		{"2:1 of 6", 6, []string{"member1", "member2"}, []int64{2, 1}, "member1:4 member2:2"},
		{"1:2 of 9", 9, []string{"member1", "member2"}, []int64{1, 2}, "member1:3 member2:6"},
		{"1:3 of 9", 9, []string{"member1", "member2"}, []int64{1, 3}, "member1:2 member2:7"},
		{"1:2:4 of 7", 7, []string{"A", "B", "C"}, []int64{1, 2, 4}, "A:1 B:2 C:4"},
		{"1:1:1 of 5 remainder", 5, []string{"A", "B", "C"}, []int64{1, 1, 1}, "A:2 B:2 C:1"},
		{"1:1 of 1 drops the empty cluster", 1, []string{"member1", "member2"}, []int64{1, 1}, "member1:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var clusters []any
			for _, n := range tt.names {
				clusters = append(clusters, n, 0)
			}
			spec := st.Spec(tt.replicas, st.Static(tt.names, tt.weights...))
			if got := run(t, spec, details(clusters...), false); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStaticWeightZeroAndMaxWeights(t *testing.T) {
	// member3 matches no weight entry: weight 0, excluded.
	spec := st.Spec(4, st.Static([]string{"member1", "member2"}, 1, 1))
	if got := run(t, spec, details("member1", 0, "member2", 0, "member3", 0), false); got != "member1:2 member2:2" {
		t.Errorf("zero-weight cluster: got %q", got)
	}
	// Several entries match member1: the largest weight wins (3 vs 1).
	p := st.Static([]string{"member1", "member2"}, 1, 1)
	p.ReplicaScheduling.WeightPreference.StaticWeightList = append(p.ReplicaScheduling.WeightPreference.StaticWeightList,
		policyv1alpha1.StaticClusterWeight{TargetCluster: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1"}}, Weight: 3})
	if got := run(t, st.Spec(8, p), details("member1", 0, "member2", 0), false); got != "member1:6 member2:2" {
		t.Errorf("max weight: got %q", got)
	}
	// No entry matches any selected cluster: every cluster weighs 1.
	if got := run(t, st.Spec(4, st.Static([]string{"x"}, 5)), details("member1", 0, "member2", 0), false); got != "member1:2 member2:2" {
		t.Errorf("all-zero weights: got %q", got)
	}
	// No weight preference at all: every cluster weighs 1.
	p = st.Static(nil)
	p.ReplicaScheduling.WeightPreference = nil
	if got := run(t, st.Spec(3, p), details("member1", 0, "member2", 0), false); got != "member1:2 member2:1" {
		t.Errorf("nil weight preference: got %q", got)
	}
}

func TestStaticWeightIgnoresPrevious(t *testing.T) {
	spec := st.Spec(6, st.Static([]string{"member1", "member2"}, 2, 1))
	spec.Clusters = st.Targets("member1", 1, "member2", 2)
	if got := run(t, spec, details("member1", 0, "member2", 0), false); got != "member1:4 member2:2" {
		t.Errorf("static weights must be recomputed from scratch: got %q", got)
	}
}

func TestDynamicWeight(t *testing.T) {
	abc := details("A", 10, "B", 2, "C", 5)
	tests := []struct {
		name     string
		replicas int32
		previous []workv1alpha2.TargetCluster
		clusters []framework.ClusterDetail
		fresh    bool
		want     string
	}{
		{"first schedule divides by allocatable", 17, nil, abc, false, "A:10 B:2 C:5"},
		{"scale up 4→7 adds new seats to previous", 7, st.Targets("A", 2, "B", 2), abc, false, "A:4 B:2 C:1"},
		{"scale down 10→5 divides by previous replicas", 5, st.Targets("A", 6, "B", 4), abc, false, "A:3 B:2"},
		{"unchanged total keeps previous, no rebalance", 4, st.Targets("A", 2, "B", 2), abc, false, "A:2 B:2"},
		{"fresh divides by allocatable + previous", 7, st.Targets("A", 2, "B", 2), abc, true, "A:4 B:1 C:2"},
		{"previous on an unselected cluster is dropped and re-placed", 4, st.Targets("A", 2, "Z", 2), abc, false, "A:3 C:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := st.Spec(tt.replicas, st.Dynamic(false))
			spec.Clusters = tt.previous
			if got := run(t, spec, tt.clusters, tt.fresh); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAggregated(t *testing.T) {
	abc := details("A", 10, "B", 2, "C", 5)
	tests := []struct {
		name     string
		replicas int32
		previous []workv1alpha2.TargetCluster
		want     string
	}{
		{"first schedule packs into the largest cluster", 8, nil, "A:8"},
		{"first schedule spills to the next largest", 13, nil, "A:9 C:4"},
		{"scale up prefers clusters already used", 7, st.Targets("A", 2, "B", 2), "A:5 B:2"},
		{"scale down 10→5 keeps the shortest prefix", 5, st.Targets("A", 6, "B", 4), "A:5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := st.Spec(tt.replicas, st.Dynamic(true))
			spec.Clusters = tt.previous
			if got := run(t, spec, abc, false); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDynamicUnschedulable(t *testing.T) {
	spec := st.Spec(20, st.Dynamic(false))
	_, err := Assign(Request{Spec: spec, Replicas: 20, Clusters: details("A", 10, "B", 2, "C", 5)})
	if !framework.IsUnschedulable(err) || err.Error() != "Clusters available replicas 17 are not enough to schedule." {
		t.Fatalf("err = %v, want UnschedulableError with Karmada's message", err)
	}
	// A scale up only needs room for the new replicas.
	spec = st.Spec(20, st.Dynamic(false))
	spec.Clusters = st.Targets("A", 5, "B", 5)
	got, err := Assign(Request{Spec: spec, Replicas: 20, Clusters: details("A", 10, "B", 2, "C", 5), Previous: spec.Clusters})
	if err != nil || st.Format(got) != "A:11 B:6 C:3" {
		t.Fatalf("scale up 10→20 = %q, %v; want A:11 B:6 C:3", st.Format(got), err)
	}
}

func TestAssignTiers(t *testing.T) {
	spec := st.Spec(12, st.Dynamic(false))
	clusters := details("p1", 4, "p2", 4, "o1", 10, "o2", 10)
	for i := range clusters {
		if clusters[i].Name()[0] == 'o' {
			clusters[i].OverflowOrder = 1
		}
	}
	got, err := AssignTiers(Request{Spec: spec, Replicas: 12, Clusters: clusters})
	if err != nil || st.Format(got) != "p1:4 p2:4 o1:2 o2:2" {
		t.Fatalf("tiers = %q, %v; want primary full (8) then 4 overflow", st.Format(got), err)
	}
	if _, err := AssignTiers(Request{Spec: st.Spec(40, st.Dynamic(false)), Replicas: 40, Clusters: clusters}); !framework.IsUnschedulable(err) {
		t.Fatalf("tiers beyond capacity: err = %v, want UnschedulableError", err)
	}
}

// TestUsesStrategyAgainstIsWorkload pins where Karmada's assignment rule
// and its workload rule differ: components alone make a workload that the
// single-template strategies do not divide.
func TestUsesStrategyAgainstIsWorkload(t *testing.T) {
	reqs := &workv1alpha2.ReplicaRequirements{}
	tests := []struct {
		name                   string
		spec                   workv1alpha2.ResourceBindingSpec
		workload, usesStrategy bool
	}{
		{"nothing", workv1alpha2.ResourceBindingSpec{}, false, false},
		{"replicas", workv1alpha2.ResourceBindingSpec{Replicas: 2}, true, true},
		{"requirements only", workv1alpha2.ResourceBindingSpec{ReplicaRequirements: reqs}, true, true},
		{"one component only", workv1alpha2.ResourceBindingSpec{Components: []workv1alpha2.Component{{Name: "a"}}}, true, false},
		{"replicas and two components", workv1alpha2.ResourceBindingSpec{Replicas: 2, Components: []workv1alpha2.Component{{Name: "a"}, {Name: "b"}}}, true, false},
		{"replicas and one component", workv1alpha2.ResourceBindingSpec{Replicas: 2, Components: []workv1alpha2.Component{{Name: "a"}}}, true, true},
	}
	for _, tt := range tests {
		if got := tt.spec.IsWorkload(); got != tt.workload {
			t.Errorf("%s: IsWorkload = %v, want %v", tt.name, got, tt.workload)
		}
		if got := UsesStrategy(&tt.spec); got != tt.usesStrategy {
			t.Errorf("%s: UsesStrategy = %v, want %v", tt.name, got, tt.usesStrategy)
		}
	}
}
