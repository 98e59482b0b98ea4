package federatedhpa

import (
	"context"
	"errors"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/metrics"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

// Reconcile runs the phases: target, binding, clusters, member scales and
// pods, template scale, decision, rescale, status.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	key := req.String()
	fhpa := &autoscalingv1alpha1.FederatedHPA{}
	if err := r.client.Get(ctx, req.NamespacedName, fhpa); err != nil {
		if client.IgnoreNotFound(err) == nil {
			r.norm.Forget(key)
			r.mu.Lock()
			delete(r.selectors, key)
			r.mu.Unlock()
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	withDefaults(fhpa)
	status := fhpa.Status.DeepCopy()
	start := time.Now()
	err := r.scale(ctx, key, fhpa, status)
	metrics.FederatedHPAProcessed(start, err)
	if err != nil {
		var se *scaleError
		if errors.As(err, &se) {
			setCondition(status, autoscalingv2.AbleToScale, corev1.ConditionFalse, se.condition, "the HPA controller was unable to get the target's current scale: %v", boundedtext.Error(se.err))
			r.recorder.Event(fhpa, corev1.EventTypeWarning, se.event, boundedtext.Error(se.err).Error())
		}
	}
	if statusErr := r.writeStatus(ctx, fhpa, status); statusErr != nil && err == nil {
		err = statusErr
	}
	if err != nil {
		return reconcile.Result{}, boundedtext.Error(err)
	}
	return reconcile.Result{RequeueAfter: r.opts.SyncPeriod}, nil
}

// withDefaults applies Karmada's mutating webhook defaults in memory:
// minReplicas 1, and a cpu 80% utilization metric when none is given.
func withDefaults(fhpa *autoscalingv1alpha1.FederatedHPA) {
	if fhpa.Spec.MinReplicas == nil {
		fhpa.Spec.MinReplicas = ptr.To[int32](1)
	}
	if len(fhpa.Spec.Metrics) == 0 {
		fhpa.Spec.Metrics = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](80)},
		}}}
	}
}
