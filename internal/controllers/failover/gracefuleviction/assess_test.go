package gracefuleviction

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) *metav1.Time { t := metav1.NewTime(now.Add(d)); return &t }

func evicting(health workv1alpha2.ResourceHealth, scheduled bool, tasks ...workv1alpha2.GracefulEvictionTask) *workv1alpha2.ResourceBinding {
	b := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "app-deployment", Generation: 3}}
	b.Spec.Clusters = []workv1alpha2.TargetCluster{{Name: "member2", Replicas: 3}}
	b.Spec.GracefulEvictionTasks = tasks
	b.Status.SchedulerObservedGeneration = 2
	if scheduled {
		b.Status.SchedulerObservedGeneration = 3
	}
	b.Status.AggregatedStatus = []workv1alpha2.AggregatedStatusItem{
		{ClusterName: "member1", Health: workv1alpha2.ResourceHealthy}, // the evicted copy does not count
		{ClusterName: "member2", Health: health},
	}
	return b
}

func task(cluster string, created *metav1.Time) workv1alpha2.GracefulEvictionTask {
	return workv1alpha2.GracefulEvictionTask{FromCluster: cluster, PurgeMode: policyv1alpha1.PurgeModeGracefully, Reason: "TaintUntolerated",
		Producer: "TaintManager", CreationTimestamp: created}
}

func TestAssess(t *testing.T) {
	timeout := 10 * time.Minute
	withGrace := task("member1", at(-time.Minute))
	withGrace.GracePeriodSeconds = ptr.To[int32](30)
	suppressed := task("member1", at(-time.Hour))
	suppressed.SuppressDeletion = ptr.To(true)
	released := task("member1", at(0))
	released.SuppressDeletion = ptr.To(false)
	for _, tc := range []struct {
		name        string
		b           *workv1alpha2.ResourceBinding
		wantDropped []string
		wantKept    int
		wantRequeue time.Duration
	}{
		{"unstamped: stamped and kept, even if healthy", evicting(workv1alpha2.ResourceHealthy, true, task("member1", nil)), nil, 1, timeout + time.Second},
		{"healthy and scheduled: dropped", evicting(workv1alpha2.ResourceHealthy, true, task("member1", at(-time.Second))), []string{"member1"}, 0, 0},
		{"healthy but not scheduled yet: kept", evicting(workv1alpha2.ResourceHealthy, false, task("member1", at(-time.Minute))), nil, 1, 9*time.Minute + time.Second},
		{"unhealthy: kept", evicting(workv1alpha2.ResourceUnhealthy, true, task("member1", at(-time.Minute))), nil, 1, 9*time.Minute + time.Second},
		{"unknown: kept", evicting(workv1alpha2.ResourceUnknown, true, task("member1", at(-time.Minute))), nil, 1, 9*time.Minute + time.Second},
		{"timed out: dropped", evicting(workv1alpha2.ResourceUnhealthy, false, task("member1", at(-11*time.Minute))), []string{"member1"}, 0, 0},
		{"gracePeriodSeconds wins over the flag", evicting(workv1alpha2.ResourceUnhealthy, false, withGrace), []string{"member1"}, 0, 0},
		{"suppressDeletion true: kept past any timeout, no requeue", evicting(workv1alpha2.ResourceHealthy, true, suppressed), nil, 1, 0},
		{"suppressDeletion false: dropped at once", evicting(workv1alpha2.ResourceUnhealthy, false, released), []string{"member1"}, 0, 0},
	} {
		a := assess(tc.b, now, timeout)
		if len(a.kept) != tc.wantKept || len(a.dropped) != len(tc.wantDropped) || a.requeueAfter != tc.wantRequeue {
			t.Errorf("%s: kept %d dropped %v requeue %v; want %d %v %v", tc.name, len(a.kept), a.dropped, a.requeueAfter,
				tc.wantKept, tc.wantDropped, tc.wantRequeue)
		}
		if a.changed != (len(tc.wantDropped) > 0 || tc.b.Spec.GracefulEvictionTasks[0].CreationTimestamp == nil) {
			t.Errorf("%s: changed = %v", tc.name, a.changed)
		}
	}
}

func TestAssessMissingItemKeeps(t *testing.T) {
	b := evicting(workv1alpha2.ResourceHealthy, true, task("member1", at(-time.Second)))
	b.Spec.Clusters = append(b.Spec.Clusters, workv1alpha2.TargetCluster{Name: "member3", Replicas: 1})
	if a := assess(b, now, time.Minute); len(a.kept) != 1 {
		t.Errorf("a new cluster without status yet did not keep the task: %+v", a)
	}
	// Two tasks: each has its own lifetime.
	b = evicting(workv1alpha2.ResourceUnhealthy, true, task("member1", at(-2*time.Minute)), task("member3", at(-30*time.Second)))
	a := assess(b, now, time.Minute)
	if len(a.dropped) != 1 || a.dropped[0] != "member1" || len(a.kept) != 1 || a.requeueAfter != 31*time.Second {
		t.Errorf("two tasks: %+v", a)
	}
}

func TestAssessWaitsForTheNewReplicas(t *testing.T) {
	// member2 is Healthy at its old size (1 ready) but now has 3 assigned:
	// the task stays (Karmada would drop it).
	b := evicting(workv1alpha2.ResourceHealthy, true, task("member1", at(-time.Second)))
	b.Status.AggregatedStatus[1].Status = &runtime.RawExtension{Raw: []byte(`{"replicas":1,"readyReplicas":1}`)}
	if a := assess(b, now, time.Minute); len(a.kept) != 1 {
		t.Errorf("task dropped while member2 runs 1 of 3 replicas: %+v", a)
	}
	b.Status.AggregatedStatus[1].Status = &runtime.RawExtension{Raw: []byte(`{"replicas":3,"readyReplicas":3}`)}
	if a := assess(b, now, time.Minute); len(a.dropped) != 1 {
		t.Errorf("task kept although member2 runs 3 of 3: %+v", a)
	}
	// A status without replica counts (a kind without replicas) passes on
	// health alone.
	b.Status.AggregatedStatus[1].Status = &runtime.RawExtension{Raw: []byte(`{"phase":"Ready"}`)}
	if a := assess(b, now, time.Minute); len(a.dropped) != 1 {
		t.Errorf("task kept for a status without replica counts: %+v", a)
	}
}

func TestReplicasReady(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want int32
		ok   bool
	}{
		{`{"replicas":2}`, 2, false}, // readyReplicas omitted: 0
		{`{"replicas":2,"readyReplicas":2}`, 2, true},
		{`{"replicas":3,"readyReplicas":2}`, 3, false},
		{`{"readyReplicas":5}`, 3, true}, // no replicas field: not a counted kind
		{`not json`, 3, true},
		{`{"replicas":2}`, 0, true},
	} {
		if got := replicasReady(&runtime.RawExtension{Raw: []byte(tc.raw)}, tc.want); got != tc.ok {
			t.Errorf("replicasReady(%s, %d) = %v, want %v", tc.raw, tc.want, got, tc.ok)
		}
	}
}
