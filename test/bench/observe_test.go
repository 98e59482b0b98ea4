package main

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func benchBinding(clusters, statuses int, fullyApplied bool) *workv1alpha2.ResourceBinding {
	rb := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "bench-1-deployment"}}
	for i := range clusters {
		rb.Spec.Clusters = append(rb.Spec.Clusters, workv1alpha2.TargetCluster{Name: memberName(i + 1)})
	}
	for i := range statuses {
		rb.Status.AggregatedStatus = append(rb.Status.AggregatedStatus, workv1alpha2.AggregatedStatusItem{ClusterName: memberName(i + 1)})
	}
	if fullyApplied {
		rb.Status.Conditions = []metav1.Condition{{Type: workv1alpha2.FullyApplied, Status: metav1.ConditionTrue}}
	}
	return rb
}

func appliedWork(name string) *workv1alpha1.Work {
	return &workv1alpha1.Work{
		ObjectMeta: metav1.ObjectMeta{Namespace: "karmada-es-x", Name: name,
			Annotations: map[string]string{workv1alpha2.ResourceBindingNameAnnotation: "bench-1-deployment"}},
		Status: workv1alpha1.WorkStatus{Conditions: []metav1.Condition{{Type: workv1alpha1.WorkApplied, Status: metav1.ConditionTrue}}},
	}
}

func TestObserverAggregatedPerBindingClusters(t *testing.T) {
	o := newObserver(0) // placement subset or mixed
	o.recordBinding(benchBinding(0, 0, false))
	o.recordBinding(benchBinding(2, 1, true))
	if s := o.snapshot(); s.aggregated.count != 0 || s.scheduled.count != 1 || s.wantWorks != 2 {
		t.Fatalf("one of two statuses: %+v", s)
	}
	o.recordBinding(benchBinding(2, 2, true))
	if s := o.snapshot(); s.aggregated.count != 1 {
		t.Fatalf("both statuses: %+v", s)
	}

	all := newObserver(3) // placement all: every member's status
	all.recordBinding(benchBinding(2, 2, true))
	if s := all.snapshot(); s.aggregated.count != 0 {
		t.Fatalf("2 of 3 members: %+v", s)
	}
}

func TestObserverAllWorksApplied(t *testing.T) {
	o := newObserver(0)
	o.recordBinding(benchBinding(2, 0, false))
	o.recordWork(appliedWork("bench-1-a"))
	o.recordWork(appliedWork("bench-1-a")) // the same Work again counts once
	created := map[string]time.Time{"bench-1-deployment": time.Now().Add(-time.Second)}
	if _, e2e := o.latencies(created); len(e2e) != 0 {
		t.Fatalf("one of two Works applied: %v", e2e)
	}
	o.recordWork(appliedWork("bench-1-b"))
	schedule, e2e := o.latencies(created)
	if len(e2e) != 1 || e2e[0] < 1 || len(schedule) != 1 || schedule[0] < 0 {
		t.Fatalf("both Works applied: schedule %v, end to end %v", schedule, e2e)
	}
}
