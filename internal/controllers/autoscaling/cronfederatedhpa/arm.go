package cronfederatedhpa

import (
	"fmt"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

// arm brings the remembered rules in line with the spec: unchanged rules
// keep their next fire time; new or changed rules (all of them when the
// target changed) are parsed and get the next fire after now; rules gone
// from the spec are dropped.
func (r *Reconciler) arm(cron *autoscalingv1alpha1.CronFederatedHPA) (*armedObject, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := client.ObjectKeyFromObject(cron)
	obj := r.armed[key]
	if obj == nil || obj.target != cron.Spec.ScaleTargetRef {
		obj = &armedObject{target: cron.Spec.ScaleTargetRef, rules: map[string]*armedRule{}}
		r.armed[key] = obj
	}
	now := r.now()
	keep := map[string]bool{}
	for _, rule := range cron.Spec.Rules {
		keep[rule.Name] = true
		if a := obj.rules[rule.Name]; a != nil && apiequality.Semantic.DeepEqual(a.rule, rule) {
			continue
		}
		sched, err := parseRule(rule)
		if err != nil {
			delete(obj.rules, rule.Name)
			return nil, fmt.Errorf("start rule of CronFederatedHPA(%s): %w", key, err)
		}
		a := &armedRule{rule: *rule.DeepCopy(), schedule: sched}
		if !suspended(rule) {
			a.next = sched.next(now)
		}
		obj.rules[rule.Name] = a
	}
	for name := range obj.rules {
		if !keep[name] {
			delete(obj.rules, name)
		}
	}
	return obj, nil
}

func suspended(rule autoscalingv1alpha1.CronFederatedHPARule) bool {
	return rule.Suspend != nil && *rule.Suspend
}
