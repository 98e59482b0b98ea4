package scheduler

import (
	"errors"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	st "github.com/propel-mc/propel/internal/scheduling/scheduler/internal/schedtest"
)

// TestRecordAttemptFollowsKarmada: the schedule type is ScaleSchedule
// only when the replicas changed; a failed run (scheduling or writing) is
// an error and a requeued run an incoming ScheduleAttemptFailure.
func TestRecordAttemptFollowsKarmada(t *testing.T) {
	const (
		attempts = "karmada_scheduler_schedule_attempts_total"
		e2e      = "karmada_scheduler_e2e_scheduling_duration_seconds"
		incoming = "karmada_scheduler_queue_incoming_bindings_total"
	)
	failure := map[string]string{"event": "ScheduleAttemptFailure"}
	for _, tc := range []struct {
		name        string
		why         trigger
		scheduleErr error
		res         reconcile.Result
		err         error
		labels      map[string]string
		requeued    bool
	}{
		{"replicas changed", triggerReplicas, nil, reconcile.Result{}, nil, map[string]string{"result": "scheduled", "schedule_type": "ScaleSchedule"}, false},
		{"placement changed", triggerPlacement, nil, reconcile.Result{}, nil, map[string]string{"result": "scheduled", "schedule_type": "ReconcileSchedule"}, false},
		{"unschedulable, retried later", triggerAlways, errors.New("unschedulable"), reconcile.Result{RequeueAfter: time.Minute}, nil, map[string]string{"result": "error", "schedule_type": "ReconcileSchedule"}, true},
		{"write failed", triggerReplicas, nil, reconcile.Result{}, errors.New("conflict"), map[string]string{"result": "error", "schedule_type": "ScaleSchedule"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, h, f := st.MetricCount(t, attempts, tc.labels), st.MetricCount(t, e2e, tc.labels), st.MetricCount(t, incoming, failure)
			recordAttempt(tc.why, time.Now(), tc.scheduleErr, tc.res, tc.err)
			if got := st.MetricCount(t, attempts, tc.labels) - a; got != 1 {
				t.Errorf("%s%v grew by %v, want 1", attempts, tc.labels, got)
			}
			if got := st.MetricCount(t, e2e, tc.labels) - h; got != 1 {
				t.Errorf("%s%v grew by %v, want 1", e2e, tc.labels, got)
			}
			want := 0.0
			if tc.requeued {
				want = 1
			}
			if got := st.MetricCount(t, incoming, failure) - f; got != want {
				t.Errorf("%s%v grew by %v, want %v", incoming, failure, got, want)
			}
		})
	}
}
