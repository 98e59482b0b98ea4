package cronfederatedhpa

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/liveobject"
	"github.com/propel-mc/propel/internal/shared/metrics"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

// Reconcile arms the rules, fires those that are due, records the
// executions and next fire times, and comes back at the next fire.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cron := &autoscalingv1alpha1.CronFederatedHPA{}
	if live, err := liveobject.Get(ctx, r.client, req.NamespacedName, cron); !live {
		if err == nil {
			r.forget(req.NamespacedName)
		}
		return reconcile.Result{}, err
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
