package scheduler

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/core"
	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
	"github.com/propel-mc/propel/pkg/apis"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// TestPatchStatusStampsEveryRun: a successful scheduling run stamps
// lastScheduledTime even when it changes nothing else (Karmada's
// cluster-affinity spec waits for the stamp after a cluster label change
// that keeps the placement); a failed run leaves it alone.
func TestPatchStatusStampsEveryRun(t *testing.T) {
	earlier := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	rb := &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "default", Generation: 1},
		Spec:       *st.Spec(1, st.Static([]string{"m1"}, 1)),
	}
	rb.Status.SchedulerObservedGeneration = 1
	rb.Status.LastScheduledTime = &earlier
	meta.SetStatusCondition(&rb.Status.Conditions, scheduledCondition(nil))
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(rb).WithStatusSubresource(rb).Build()
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.client = c
	ctx := context.Background()
	load := func() *binding {
		got := &workv1alpha2.ResourceBinding{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(rb), got); err != nil {
			t.Fatal(err)
		}
		b, _ := wrap(got)
		return b
	}

	failed := outcome{err: errors.New("boom")}
	failAt := time.Now().Add(time.Minute).Truncate(time.Second)
	s.now = func() time.Time { return failAt }
	if _, err := s.patchStatus(ctx, load(), failed); err != nil {
		t.Fatal(err)
	}
	if got := load().status.LastScheduledTime; !got.Equal(&earlier) {
		t.Errorf("a failed run moved lastScheduledTime to %v", got)
	}

	b := load()
	b.status.Conditions = rb.Status.Conditions // back to the steady state
	if err := c.Status().Update(ctx, b.obj); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Minute).Truncate(time.Second)
	s.now = func() time.Time { return later }
	written, err := s.patchStatus(ctx, load(), outcome{result: core.Result{Clusters: rb.Spec.Clusters}})
	if err != nil {
		t.Fatal(err)
	}
	if !written {
		t.Fatal("a successful run that changes nothing else wrote no status")
	}
	if got := load().status.LastScheduledTime; got == nil || !got.Time.Equal(later) {
		t.Errorf("lastScheduledTime = %v, want %v", got, later)
	}
}
