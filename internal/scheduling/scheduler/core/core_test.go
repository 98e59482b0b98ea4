package core

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

var noStatus = &workv1alpha2.ResourceBindingStatus{}

func schedule(t *testing.T, spec *workv1alpha2.ResourceBindingSpec, status *workv1alpha2.ResourceBindingStatus, clusters ...*clusterv1alpha1.Cluster) (Result, error) {
	t.Helper()
	return New().Schedule(spec, status, clusters)
}

// TestWorkedExample is appendix D: nginx with 9 replicas, static weights
// member1=1, member2=2 → 3/6; scaled to 12 → 4/8.
func TestWorkedExample(t *testing.T) {
	clusters := []*clusterv1alpha1.Cluster{st.Cluster("member1"), st.Cluster("member2"), st.Cluster("member3")}
	spec := st.Spec(9, st.Static([]string{"member1", "member2"}, 1, 2))
	res, err := schedule(t, spec, noStatus, clusters...)
	if err != nil || st.Format(res.Clusters) != "member1:3 member2:6" {
		t.Fatalf("9 replicas: %q, %v", st.Format(res.Clusters), err)
	}
	spec.Clusters, spec.Replicas = res.Clusters, 12
	res, err = schedule(t, spec, noStatus, clusters...)
	if err != nil || st.Format(res.Clusters) != "member1:4 member2:8" {
		t.Fatalf("12 replicas: %q, %v", st.Format(res.Clusters), err)
	}
}

func TestFitErrorMessage(t *testing.T) {
	clusters := []*clusterv1alpha1.Cluster{
		st.Cluster("m1"), st.Cluster("m2"),
		st.Cluster("m3", st.Taint("cluster.karmada.io/not-ready", "", corev1.TaintEffectNoSchedule)),
		st.Cluster("m4", st.NoAPIs()),
	}
	gone := st.Cluster("gone")
	gone.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	clusters = append(clusters, gone)
	p := &policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"m3", "m4", "gone"}}}
	_, err := schedule(t, st.Spec(1, p), noStatus, clusters...)
	want := "0/5 clusters are available: 1 cluster(s) did not have the API resource, 1 cluster(s) had untolerated taint {cluster.karmada.io/not-ready:NoSchedule}, 2 cluster(s) did not match the placement cluster affinity constraint."
	if !framework.IsFitError(err) || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	_, err = schedule(t, st.Spec(1, p), noStatus)
	if !framework.IsFitError(err) || err.Error() != "0/0 clusters are available: no cluster exists." {
		t.Fatalf("empty snapshot: %v", err)
	}
}

func TestAppendixBAffinityMessage(t *testing.T) {
	p := &policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"elsewhere"}}}
	_, err := schedule(t, st.Spec(1, p), noStatus, st.Cluster("member1"), st.Cluster("member2"), st.Cluster("member3"))
	if err == nil || err.Error() != "0/3 clusters are available: 3 cluster(s) did not match the placement cluster affinity constraint." {
		t.Fatalf("err = %v", err)
	}
}

func affinities(terms ...[]string) *policyv1alpha1.Placement {
	p := &policyv1alpha1.Placement{}
	for i, names := range terms {
		p.ClusterAffinities = append(p.ClusterAffinities, policyv1alpha1.ClusterAffinityTerm{
			AffinityName: string(rune('a' + i)), ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: names}})
	}
	return p
}

func TestClusterAffinitiesFallback(t *testing.T) {
	clusters := []*clusterv1alpha1.Cluster{st.Cluster("m1"), st.Cluster("m2")}
	p := affinities([]string{"missing"}, []string{"m2"}, []string{"m1"})
	res, err := schedule(t, st.Spec(2, p), noStatus, clusters...)
	if err != nil || res.AffinityName != "b" || st.Format(res.Clusters) != "m2:2" {
		t.Fatalf("fallback to the second term: %+v, %v", res, err)
	}
	// Starting at the observed term skips earlier ones.
	res, err = schedule(t, st.Spec(2, p), &workv1alpha2.ResourceBindingStatus{SchedulerObservedAffinityName: "c"}, clusters...)
	if err != nil || res.AffinityName != "c" || st.Format(res.Clusters) != "m1:2" {
		t.Fatalf("start at the observed term: %+v, %v", res, err)
	}
	// A due manual reschedule restarts from the first term.
	spec := st.Spec(2, p)
	spec.RescheduleTriggeredAt = &metav1.Time{Time: time.Now()}
	status := &workv1alpha2.ResourceBindingStatus{SchedulerObservedAffinityName: "c", LastScheduledTime: &metav1.Time{Time: time.Now().Add(-time.Hour)}}
	res, err = schedule(t, spec, status, clusters...)
	if err != nil || res.AffinityName != "b" {
		t.Fatalf("reschedule restarts at the first term: %+v, %v", res, err)
	}
	// Every term failing returns the first error and keeps the name.
	p = affinities([]string{"x"}, []string{"y"})
	res, err = schedule(t, st.Spec(2, p), &workv1alpha2.ResourceBindingStatus{SchedulerObservedAffinityName: "a"}, clusters...)
	if !framework.IsFitError(err) || res.AffinityName != "a" || res.Clusters != nil {
		t.Fatalf("all terms fail: %+v, %v", res, err)
	}
}

func TestOverflowAffinities(t *testing.T) {
	clusters := []*clusterv1alpha1.Cluster{
		st.Cluster("p1", st.Resources("4", "16Gi", 110)),
		st.Cluster("o1", st.Resources("100", "400Gi", 110)),
		st.Cluster("x", st.Resources("100", "400Gi", 110)),
	}
	p := st.Dynamic(false)
	p.ClusterAffinities = []policyv1alpha1.ClusterAffinityTerm{{
		AffinityName:       "primary",
		ClusterAffinity:    policyv1alpha1.ClusterAffinity{ClusterNames: []string{"p1"}},
		OverflowAffinities: []policyv1alpha1.OverflowClusterAffinity{{AffinityName: "burst", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"o1"}}}},
	}}
	spec := st.CPURequest(st.Spec(10, p), "1", "1Gi")
	res, err := schedule(t, spec, noStatus, clusters...)
	if err != nil || st.Format(res.Clusters) != "p1:4 o1:6" {
		t.Fatalf("primary takes 4, overflow the rest: %q, %v", st.Format(res.Clusters), err)
	}
}

func TestInvalidPlacementIsSchedulerError(t *testing.T) {
	p := st.Dynamic(false)
	p.SpreadConstraints = []policyv1alpha1.SpreadConstraint{{SpreadByField: "cluster", MinGroups: 3, MaxGroups: 1}}
	_, err := schedule(t, st.Spec(2, p), noStatus, st.Cluster("m1"))
	if err == nil || framework.IsFitError(err) || !strings.Contains(err.Error(), "spec.placement.spreadConstraints[0].maxGroups") {
		t.Fatalf("err = %v, want a plain error naming the field", err)
	}
}

func TestSpreadMaxGroupsZeroSelectsNothing(t *testing.T) {
	p := &policyv1alpha1.Placement{SpreadConstraints: []policyv1alpha1.SpreadConstraint{{SpreadByField: "cluster", MinGroups: 0, MaxGroups: 0}}}
	_, err := schedule(t, st.Spec(2, p), noStatus, st.Cluster("m1"))
	if err == nil || err.Error() != "no clusters available to schedule" {
		t.Fatalf("err = %v", err)
	}
}

func TestExistingTargetsSurviveTaints(t *testing.T) {
	tainted := st.Cluster("m1", st.Taint("cluster.karmada.io/unreachable", "", corev1.TaintEffectNoExecute))
	spec := st.Spec(2, &policyv1alpha1.Placement{})
	spec.Clusters = st.Targets("m1", 2)
	res, err := schedule(t, spec, noStatus, tainted, st.Cluster("m2"))
	if err != nil || st.Format(res.Clusters) != "m1:2 m2:2" {
		t.Fatalf("duplicated keeps the tainted target: %q, %v", st.Format(res.Clusters), err)
	}
}

func TestScoreOrdersDuplicatedResult(t *testing.T) {
	// ClusterLocality puts the current target first.
	spec := st.Spec(1, &policyv1alpha1.Placement{})
	spec.Clusters = st.Targets("m3", 1)
	res, err := schedule(t, spec, noStatus, st.Cluster("m1"), st.Cluster("m2"), st.Cluster("m3"))
	if err != nil || st.Format(res.Clusters) != "m3:1 m1:1 m2:1" {
		t.Fatalf("order: %q, %v", st.Format(res.Clusters), err)
	}
}

func TestDynamicWeightUsesResourceSummary(t *testing.T) {
	clusters := []*clusterv1alpha1.Cluster{
		st.Cluster("a", st.Resources("10", "100Gi", 110)),
		st.Cluster("b", st.Resources("2", "100Gi", 110)),
		st.Cluster("c", st.Resources("5", "100Gi", 110)),
	}
	spec := st.CPURequest(st.Spec(7, st.Dynamic(false)), "1", "1Gi")
	spec.Clusters = st.Targets("a", 2, "b", 2)
	spec.Replicas = 7
	res, err := schedule(t, spec, noStatus, clusters...)
	if err != nil || st.Format(res.Clusters) != "a:4 b:2 c:1" {
		t.Fatalf("scale up 4→7: %q, %v", st.Format(res.Clusters), err)
	}
	spec = st.CPURequest(st.Spec(20, st.Dynamic(false)), "1", "1Gi")
	_, err = schedule(t, spec, noStatus, clusters...)
	if !framework.IsUnschedulable(err) || err.Error() != "Clusters available replicas 17 are not enough to schedule." {
		t.Fatalf("unschedulable: %v", err)
	}
}

func TestEmptyWorkloadPropagation(t *testing.T) {
	s := New()
	s.EnableEmptyWorkloadPropagation = true
	res, err := s.Schedule(st.Spec(1, st.Static([]string{"m1", "m2"}, 1, 1)), noStatus, []*clusterv1alpha1.Cluster{st.Cluster("m1"), st.Cluster("m2")})
	if err != nil || st.Format(res.Clusters) != "m1:1 m2:0" {
		t.Fatalf("got %q, %v", st.Format(res.Clusters), err)
	}
}
