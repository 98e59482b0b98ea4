package cronfederatedhpa

import (
	"context"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

// recordStatus writes each rule's next fire time and the new executions
// (newest first, trimmed to the rule's limits) and drops the histories of
// rules that are gone; it writes only when something changed.
func (r *Reconciler) recordStatus(ctx context.Context, key types.NamespacedName, obj *armedObject, executions []execution) error {
	r.mu.Lock()
	next := map[string]*metav1.Time{}
	for name, a := range obj.rules {
		if !a.next.IsZero() {
			next[name] = &metav1.Time{Time: a.next}
		} else {
			next[name] = nil
		}
	}
	r.mu.Unlock()
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cron := &autoscalingv1alpha1.CronFederatedHPA{}
		if err := r.client.Get(ctx, key, cron); err != nil {
			return client.IgnoreNotFound(err)
		}
		status := histories(cron.Status, cron.Spec.Rules, next, executions)
		if apiequality.Semantic.DeepEqual(status, cron.Status) {
			return nil
		}
		cron.Status = status
		return r.client.Status().Update(ctx, cron)
	})
}

// histories is the status for the spec's rules: one history per rule name
// in spec order, with its next fire time and the new executions prepended.
func histories(old autoscalingv1alpha1.CronFederatedHPAStatus, rules []autoscalingv1alpha1.CronFederatedHPARule, next map[string]*metav1.Time, executions []execution) autoscalingv1alpha1.CronFederatedHPAStatus {
	byName := map[string]autoscalingv1alpha1.ExecutionHistory{}
	for _, h := range old.ExecutionHistories {
		byName[h.RuleName] = h
	}
	var out autoscalingv1alpha1.CronFederatedHPAStatus
	seen := make(map[string]bool, len(rules))
	for _, rule := range rules {
		if seen[rule.Name] {
			continue
		}
		seen[rule.Name] = true
		var h autoscalingv1alpha1.ExecutionHistory
		if prev, ok := byName[rule.Name]; ok {
			h = *prev.DeepCopy()
		}
		h.RuleName = rule.Name
		h.NextExecutionTime = next[rule.Name]
		for _, e := range executions {
			if e.rule != rule.Name {
				continue
			}
			scheduled, executed := &metav1.Time{Time: e.scheduled}, &metav1.Time{Time: e.executed}
			if e.err != nil {
				h.FailedExecutions = append([]autoscalingv1alpha1.FailedExecution{{ScheduleTime: scheduled, ExecutionTime: executed, Message: e.err.Error()}}, h.FailedExecutions...)
			} else {
				h.SuccessfulExecutions = append([]autoscalingv1alpha1.SuccessfulExecution{{ScheduleTime: scheduled, ExecutionTime: executed,
					AppliedReplicas: e.replicas, AppliedMinReplicas: e.minReplicas, AppliedMaxReplicas: e.maxReplicas}}, h.SuccessfulExecutions...)
			}
			h.SuccessfulExecutions = trim(h.SuccessfulExecutions, e.successLimit)
			h.FailedExecutions = trim(h.FailedExecutions, e.failLimit)
		}
		out.ExecutionHistories = append(out.ExecutionHistories, h)
	}
	return out
}

func trim[T any](list []T, n int) []T {
	if len(list) <= n {
		return list
	}
	if n == 0 {
		return nil
	}
	return list[:n]
}
