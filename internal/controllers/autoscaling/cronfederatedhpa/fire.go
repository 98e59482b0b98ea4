package cronfederatedhpa

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/metrics"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

// fireDue executes every rule whose fire time has come and advances it.
func (r *Reconciler) fireDue(ctx context.Context, cron *autoscalingv1alpha1.CronFederatedHPA, obj *armedObject) []execution {
	r.mu.Lock()
	var due []*armedRule
	now := r.now()
	for _, a := range obj.rules {
		if !a.next.IsZero() && !a.next.After(now) {
			due = append(due, a)
		}
	}
	r.mu.Unlock()
	var out []execution
	for _, a := range due {
		e := execution{rule: a.rule.Name, scheduled: a.next, replicas: a.rule.TargetReplicas,
			minReplicas: a.rule.TargetMinReplicas, maxReplicas: a.rule.TargetMaxReplicas,
			successLimit: limit(a.rule.SuccessfulHistoryLimit), failLimit: limit(a.rule.FailedHistoryLimit)}
		// The error reaches an event and the status: bounded, whatever the
		// API server or the target's name made of it.
		start := time.Now()
		e.err = boundedtext.Error(r.scale(ctx, cron.Namespace, cron.Spec.ScaleTargetRef, a.rule))
		metrics.CronRuleProcessed(start, e.err)
		e.executed = r.now()
		if e.err != nil {
			r.recorder.Event(cron, corev1.EventTypeWarning, EventReasonScaleFailed, e.err.Error())
			log.FromContext(ctx).Info("cron rule failed to scale its target", "cronFederatedHPA", klog.KObj(cron), "rule", a.rule.Name, "err", e.err.Error())
		}
		r.mu.Lock()
		a.next = a.schedule.next(e.executed)
		r.mu.Unlock()
		out = append(out, e)
	}
	return out
}

// limit is a history limit's value (default 3); a negative or zero limit
// keeps no entries (Karmada breaks on failedHistoryLimit 0; see the docs).
func limit(l *int32) int {
	if l == nil {
		return 3
	}
	return max(int(*l), 0)
}

// untilNextFire is how long until the earliest armed fire; zero (no
// requeue) when every rule is suspended.
func (r *Reconciler) untilNextFire(obj *armedObject) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var earliest time.Time
	for _, a := range obj.rules {
		if !a.next.IsZero() && (earliest.IsZero() || a.next.Before(earliest)) {
			earliest = a.next
		}
	}
	if earliest.IsZero() {
		return 0
	}
	return max(earliest.Sub(r.now()), time.Millisecond)
}
