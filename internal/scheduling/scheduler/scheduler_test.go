package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/pkg/apis"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

func rbWith(spec *workv1alpha2.ResourceBindingSpec, applied *policyv1alpha1.Placement) *binding {
	rb := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "nginx-deployment", Namespace: "default",
		Labels: map[string]string{names.PropagationPolicyPermanentIDLabel: "p"}}, Spec: *spec}
	if applied != nil {
		data, _ := json.Marshal(applied)
		rb.Annotations = map[string]string{names.AppliedPlacementAnnotation: string(data)}
	}
	b, _ := wrap(rb)
	return b
}

func TestDecide(t *testing.T) {
	static := st.Static([]string{"m1", "m2"}, 1, 1)
	clusters := map[string]*clusterv1alpha1.Cluster{"m1": st.Cluster("m1"), "m2": st.Cluster("m2")}
	scheduled := func(replicas int32, targets ...any) *workv1alpha2.ResourceBindingSpec {
		s := st.Spec(replicas, static.DeepCopy())
		s.Clusters = st.Targets(targets...)
		return s
	}
	now := metav1.Now()
	earlier := metav1.NewTime(now.Add(-time.Minute))
	tests := []struct {
		name     string
		b        *binding
		clusters map[string]*clusterv1alpha1.Cluster
		want     trigger
	}{
		{"first time: no applied placement", rbWith(scheduled(2), nil), clusters, triggerPlacement},
		{"steady", rbWith(scheduled(2, "m1", 1, "m2", 1), static), clusters, noTrigger},
		{"placement changed", rbWith(scheduled(2, "m1", 1, "m2", 1), st.Static([]string{"m1"}, 1)), clusters, triggerPlacement},
		{"replicas changed", rbWith(scheduled(4, "m1", 1, "m2", 1), static), clusters, triggerReplicas},
		{"target cluster deleting", rbWith(scheduled(2, "m1", 1, "m2", 1), static), map[string]*clusterv1alpha1.Cluster{
			"m1": st.Cluster("m1"), "m2": func() *clusterv1alpha1.Cluster { c := st.Cluster("m2"); c.DeletionTimestamp = &now; return c }()}, triggerTargetRemoving},
		{"target cluster gone", rbWith(scheduled(2, "m1", 1, "m2", 1), static), map[string]*clusterv1alpha1.Cluster{"m1": st.Cluster("m1")}, triggerTargetRemoving},
		{"duplicated always", rbWith(st.Spec(2, &policyv1alpha1.Placement{}), &policyv1alpha1.Placement{}), clusters, triggerAlways},
		{"non-workload always", rbWith(scheduled(0), static), clusters, triggerAlways},
	}
	reschedule := rbWith(scheduled(2, "m1", 1, "m2", 1), static)
	reschedule.spec.RescheduleTriggeredAt = &now
	reschedule.status.LastScheduledTime = &earlier
	tests = append(tests, struct {
		name     string
		b        *binding
		clusters map[string]*clusterv1alpha1.Cluster
		want     trigger
	}{"manual reschedule", reschedule, clusters, triggerReschedule})
	unparsable := rbWith(scheduled(2, "m1", 1, "m2", 1), nil)
	unparsable.obj.SetAnnotations(map[string]string{names.AppliedPlacementAnnotation: "{not json"})
	tests = append(tests, struct {
		name     string
		b        *binding
		clusters map[string]*clusterv1alpha1.Cluster
		want     trigger
	}{"unparsable annotation is not a change", unparsable, clusters, noTrigger})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decide(tt.b, tt.clusters); got != tt.want {
				t.Errorf("decide = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPlacementChangedClusterAffinities(t *testing.T) {
	terms := func(first []string) *policyv1alpha1.Placement {
		return &policyv1alpha1.Placement{ClusterAffinities: []policyv1alpha1.ClusterAffinityTerm{
			{AffinityName: "a", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: first}},
			{AffinityName: "b", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"m2"}}},
		}}
	}
	applied, _ := json.Marshal(terms([]string{"m1"}))
	changed := terms([]string{"m3"})
	if placementChanged(terms([]string{"m1"}), string(applied), "b") {
		t.Error("identical clusterAffinities must not count as changed")
	}
	if placementChanged(changed, string(applied), "b") {
		t.Error("a change in a term other than the observed one must not count")
	}
	if !placementChanged(changed, string(applied), "a") {
		t.Error("a change in the observed term must count")
	}
	if !placementChanged(changed, string(applied), "") {
		t.Error("an empty observed name with a difference must count")
	}
	if !placementChanged(changed, string(applied), "gone") {
		t.Error("an observed term missing on both sides must count")
	}
	// Nil and empty slices are the same placement.
	empty, _ := json.Marshal(&policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{}})
	if placementChanged(&policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{}}}, string(empty), "") {
		t.Error("nil and empty lists must compare equal")
	}
}

func TestAdmission(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := rbWith(st.Spec(1, &policyv1alpha1.Placement{}), nil)
	if !s.admits(b) {
		t.Error("a claimed binding with an empty scheduler name must be admitted by default-scheduler")
	}
	b.spec.SchedulerName = "other"
	if s.admits(b) {
		t.Error("another scheduler's binding must not be admitted")
	}
	b.spec.SchedulerName = names.DefaultSchedulerName
	b.spec.Suspension = &workv1alpha2.Suspension{Scheduling: ptr.To(true)}
	if s.admits(b) {
		t.Error("a binding with suspended scheduling must not be admitted")
	}
	b.spec.Suspension = nil
	b.obj.SetLabels(map[string]string{names.BindingManagedByLabel: "mcs"})
	if !s.admits(b) {
		t.Error("a binding managed by another controller must be admitted")
	}
	b.obj.SetLabels(nil)
	if s.admits(b) {
		t.Error("an unclaimed binding (attached dependency, released policy) must not be admitted")
	}
}

func TestScheduledCondition(t *testing.T) {
	tests := []struct {
		err    error
		status metav1.ConditionStatus
		reason string
	}{
		{nil, metav1.ConditionTrue, workv1alpha2.BindingReasonSuccess},
		{&framework.FitError{NumAllClusters: 1, Reasons: map[string]int{"x": 1}}, metav1.ConditionFalse, workv1alpha2.BindingReasonNoClusterFit},
		{&framework.UnschedulableError{Message: "m"}, metav1.ConditionFalse, workv1alpha2.BindingReasonUnschedulable},
		{errors.New("boom"), metav1.ConditionFalse, workv1alpha2.BindingReasonSchedulerError},
		// karmada-webhook's refusal of the spec write (403 QuotaExceeded).
		{fmt.Errorf("patch: %w", &apierrors.StatusError{ErrStatus: metav1.Status{Code: http.StatusForbidden, Reason: "QuotaExceeded", Message: "admission webhook denied"}}), metav1.ConditionFalse, workv1alpha2.BindingReasonQuotaExceeded},
		{apierrors.NewForbidden(schema.GroupResource{Resource: "resourcebindings"}, "rb", errors.New("rbac")), metav1.ConditionFalse, workv1alpha2.BindingReasonSchedulerError},
	}
	for _, tt := range tests {
		c := scheduledCondition(tt.err)
		if c.Type != workv1alpha2.Scheduled || c.Status != tt.status || c.Reason != tt.reason {
			t.Errorf("scheduledCondition(%v) = %+v", tt.err, c)
		}
	}
	if c := scheduledCondition(nil); c.Message != "Binding has been scheduled successfully." {
		t.Errorf("success message %q", c.Message)
	}
}

func TestTargetsString(t *testing.T) {
	if got := targetsString(st.Targets("c1", 3, "c2", 2)); got != "{c1:3, c2:2}" {
		t.Errorf("got %q", got)
	}
}

// TestLoadReadsOwnWrites: while the cache still shows the version the
// scheduler's write superseded, load returns the written binding (the
// memo itself is tested in internal/shared/writememo).
func TestLoadReadsOwnWrites(t *testing.T) {
	cached := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "default"}}
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(cached).Build()
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.client = c
	key := types.NamespacedName{Namespace: "default", Name: "x"}
	if err := c.Get(context.Background(), key, cached); err != nil {
		t.Fatal(err)
	}
	written := cached.DeepCopy()
	written.ResourceVersion = cached.ResourceVersion + "0"
	written.Spec.Clusters = []workv1alpha2.TargetCluster{{Name: "m1"}}
	s.writes.Remember(key, cached.ResourceVersion, written.ResourceVersion, written)
	b, err := s.load(context.Background(), key)
	if err != nil || b == nil || len(b.spec.Clusters) != 1 {
		t.Fatalf("stale cache: load = %v, %v; want the scheduler's own write", b, err)
	}
	b.spec.Clusters = nil // the caller owns what load returns
	if again, _ := s.load(context.Background(), key); len(again.spec.Clusters) != 1 {
		t.Fatal("load handed out the remembered object itself")
	}
	s.writes.Forget(key)
	if b, _ := s.load(context.Background(), key); len(b.spec.Clusters) != 0 {
		t.Fatal("without a remembered write, load must return the cached binding")
	}
}

func TestEventAffinity(t *testing.T) {
	p := &policyv1alpha1.Placement{ClusterAffinities: []policyv1alpha1.ClusterAffinityTerm{
		{AffinityName: "a", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"m1"}}},
		{AffinityName: "b", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"m2"}}},
	}}
	if got := eventAffinity(p, "b"); got.ClusterNames[0] != "m2" {
		t.Errorf("observed term: %v", got)
	}
	if got := eventAffinity(p, "unknown"); got.ClusterNames[0] != "m1" {
		t.Errorf("unknown name falls back to the first term: %v", got)
	}
	if eventAffinity(&policyv1alpha1.Placement{}, "") != nil {
		t.Error("no affinity must be nil")
	}
}
