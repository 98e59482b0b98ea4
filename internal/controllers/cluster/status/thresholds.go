package status

import (
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// thresholds smooths the Ready condition: a flip between True and False
// relative to the current condition takes effect only once the new
// observation has persisted for the success threshold (towards True) or
// the failure threshold (towards False). The first observation of a
// cluster after a start is taken as-is. A current Unknown (written by
// another party) is never held.
type thresholds struct {
	success, failure time.Duration
	now              func() time.Time

	mu     sync.Mutex
	byName map[string]*observation
}

// observation is the last observed status and since when it holds.
type observation struct {
	status metav1.ConditionStatus
	since  time.Time
}

func newThresholds(success, failure time.Duration) *thresholds {
	return &thresholds{success: success, failure: failure, now: time.Now, byName: map[string]*observation{}}
}

// adjust returns the condition to write for cluster name given the
// current one (nil when absent) and the observed one.
func (t *thresholds) adjust(name string, current *metav1.Condition, observed metav1.Condition) metav1.Condition {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	last := t.byName[name]
	if last == nil {
		t.byName[name] = &observation{status: observed.Status, since: now}
		return observed
	}
	if last.status != observed.Status {
		last.status, last.since = observed.Status, now
	}
	if current == nil || !flips(current.Status, observed.Status) {
		return observed
	}
	threshold := t.failure
	if observed.Status == metav1.ConditionTrue {
		threshold = t.success
	}
	if now.Before(last.since.Add(threshold)) {
		return *current
	}
	return observed
}

func flips(current, observed metav1.ConditionStatus) bool {
	return (current == metav1.ConditionTrue && observed == metav1.ConditionFalse) ||
		(current == metav1.ConditionFalse && observed == metav1.ConditionTrue)
}

func (t *thresholds) forget(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.byName, name)
}
