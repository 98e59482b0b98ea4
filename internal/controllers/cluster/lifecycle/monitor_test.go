package lifecycle

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

func newTestMonitor() *healthMonitor {
	opts := Options{}
	opts.defaults()
	return newHealthMonitor(nil, nil, opts)
}

func pullCluster(created time.Time, ready *metav1.Condition) *clusterv1alpha1.Cluster {
	c := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "agent", CreationTimestamp: metav1.NewTime(created)},
		Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Pull}}
	if ready != nil {
		c.Status.Conditions = []metav1.Condition{*ready}
	}
	return c
}

func TestMonitorStartupGraceFromCreation(t *testing.T) {
	m := newTestMonitor()
	t0 := time.Unix(1000, 0)
	c := pullCluster(t0, nil)
	if got := m.observe(c, time.Time{}, t0.Add(59*time.Second)); got != nil {
		t.Fatalf("within the 60s startup grace: %+v", got)
	}
	got := m.observe(c, time.Time{}, t0.Add(61*time.Second))
	if got == nil || got.Status != metav1.ConditionUnknown || got.Reason != "ClusterStatusNeverUpdated" ||
		got.Message != "Cluster status controller never posted cluster status." {
		t.Fatalf("after the startup grace: %+v", got)
	}
}

func TestMonitorLeaseRenewalKeepsClusterFresh(t *testing.T) {
	m := newTestMonitor()
	t0 := time.Unix(1000, 0)
	c := pullCluster(t0, &metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0)})
	if got := m.observe(c, time.Time{}, t0); got != nil {
		t.Fatalf("first observation: %+v", got)
	}
	// The agent renews its lease every 10s for a minute: never stale.
	for s := 10; s <= 60; s += 10 {
		now := t0.Add(time.Duration(s) * time.Second)
		if got := m.observe(c, now, now); got != nil {
			t.Fatalf("renewed lease at %ds marked stale: %+v", s, got)
		}
	}
	// Then it stops: stale 40s after the last renewal, not before.
	last := t0.Add(60 * time.Second)
	if got := m.observe(c, last, last.Add(39*time.Second)); got != nil {
		t.Fatalf("within the 40s grace: %+v", got)
	}
	got := m.observe(c, last, last.Add(41*time.Second))
	if got == nil || got.Reason != "ClusterStatusUnknown" || got.Message != "Cluster status controller stopped posting cluster status." {
		t.Fatalf("after the grace: %+v", got)
	}
	// Once Unknown, nothing more to write.
	c.Status.Conditions[0] = *got
	if again := m.observe(c, last, last.Add(50*time.Second)); again != nil {
		t.Fatalf("already Unknown, wrote again: %+v", again)
	}
}

func TestMonitorReadyTransitionCountsAsProbe(t *testing.T) {
	m := newTestMonitor()
	t0 := time.Unix(1000, 0)
	c := pullCluster(t0, &metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, LastTransitionTime: metav1.NewTime(t0)})
	m.observe(c, time.Time{}, t0)
	// The agent posts a new Ready at t0+30s: fresh until t0+70s.
	c.Status.Conditions[0] = metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(30 * time.Second))}
	if got := m.observe(c, time.Time{}, t0.Add(30*time.Second)); got != nil {
		t.Fatal(got)
	}
	if got := m.observe(c, time.Time{}, t0.Add(69*time.Second)); got != nil {
		t.Fatalf("stale before the grace elapsed since the transition: %+v", got)
	}
	if got := m.observe(c, time.Time{}, t0.Add(71*time.Second)); got == nil {
		t.Fatal("not stale after the grace")
	}
	m.forget("agent")
	if len(m.records) != 0 {
		t.Fatal("forget kept the record")
	}
}
