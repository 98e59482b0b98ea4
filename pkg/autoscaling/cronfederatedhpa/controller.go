package cronfederatedhpa

import (
	"context"
	"fmt"
	"sync"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
	"github.com/propel-mc/propel/pkg/boundedtext"
	"github.com/propel-mc/propel/pkg/controllermanager/recorder"
	"github.com/propel-mc/propel/pkg/metrics"
	"github.com/propel-mc/propel/pkg/names"
)

// RBAC: CronFederatedHPAs and their executionHistories.
// +kubebuilder:rbac:groups=autoscaling.karmada.io,resources=cronfederatedhpas,verbs=get;list;watch
// +kubebuilder:rbac:groups=autoscaling.karmada.io,resources=cronfederatedhpas/status,verbs=update

// Event reasons (Karmada's).
const (
	EventReasonStartRuleFailed              = "StartRuleFailed"
	EventReasonScaleFailed                  = "ScaleFailed"
	EventReasonUpdateStatusFailed           = "UpdateStatusFailed"
	EventReasonUpdateCronFederatedHPAFailed = "UpdateCronFederatedHPAFailed"
	// EventReasonValidateRulesFailed: the object's rules cannot run as
	// given (rule names not unique), which Karmada's webhook would have
	// rejected; no rule of the object runs until the spec is fixed.
	EventReasonValidateRulesFailed = "ValidateRulesFailed"
)

// Reconciler runs the rules of CronFederatedHPAs; its requests are
// CronFederatedHPAs.
type Reconciler struct {
	client   client.Client
	recorder record.EventRecorder
	now      func() time.Time

	mu    sync.Mutex
	armed map[types.NamespacedName]*armedObject
}

// armedObject is what this process remembers of one CronFederatedHPA: the
// target its rules were armed for, and each rule's snapshot and next fire.
type armedObject struct {
	target autoscalingv2.CrossVersionObjectReference
	rules  map[string]*armedRule
}

type armedRule struct {
	rule     autoscalingv1alpha1.CronFederatedHPARule
	schedule *ruleSchedule
	// next is the next fire time; zero while suspended.
	next time.Time
}

// execution is the outcome of one fire of a rule.
type execution struct {
	rule                    string
	scheduled, executed     time.Time
	err                     error
	replicas, minReplicas   *int32
	maxReplicas             *int32
	successLimit, failLimit int
}

// New returns the controller; SetupWithManager wires it.
func New() *Reconciler {
	return &Reconciler{now: time.Now, armed: map[types.NamespacedName]*armedObject{}}
}

// SetupWithManager registers the controller with mgr; only generation
// changes trigger it (as in Karmada), the rules' fire times requeue it.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	r.client = mgr.GetClient()
	r.recorder = recorder.For(mgr, names.CronFederatedHPAControllerName)
	return builder.ControllerManagedBy(mgr).Named(names.CronFederatedHPAControllerName).
		For(&autoscalingv1alpha1.CronFederatedHPA{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}

// Reconcile arms the rules, fires those that are due, records the
// executions and next fire times, and comes back at the next fire.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cron := &autoscalingv1alpha1.CronFederatedHPA{}
	if err := r.client.Get(ctx, req.NamespacedName, cron); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.NamespacedName)
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if cron.DeletionTimestamp != nil {
		r.forget(req.NamespacedName)
		return reconcile.Result{}, nil
	}
	start := time.Now()
	res, err := r.process(ctx, req, cron)
	metrics.CronFederatedHPAProcessed(start, err)
	return res, err
}

// process runs the rules of a live CronFederatedHPA.
func (r *Reconciler) process(ctx context.Context, req reconcile.Request, cron *autoscalingv1alpha1.CronFederatedHPA) (reconcile.Result, error) {
	if err := validateRules(cron.Spec.Rules); err != nil {
		return reconcile.Result{}, r.refuse(ctx, cron, err)
	}
	obj, err := r.arm(cron)
	if err != nil {
		r.recorder.Event(cron, corev1.EventTypeWarning, EventReasonStartRuleFailed, boundedtext.String(err.Error()))
		return reconcile.Result{}, err
	}
	executions := r.fireDue(ctx, cron, obj)
	if err := r.recordStatus(ctx, req.NamespacedName, obj, executions); err != nil {
		r.recorder.Eventf(cron, corev1.EventTypeWarning, EventReasonUpdateStatusFailed, "Failed to update the status of CronFederatedHPA(%s): %v", req.NamespacedName, err)
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: r.untilNextFire(obj)}, nil
}

func (r *Reconciler) forget(key types.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.armed, key)
}

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
