package federatedhpa

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/propel-mc/propel/internal/controllers/autoscaling/federatedhpa/replicas"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/metrics"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

// decide returns the replicas to set and why; -1 when the metrics could
// not give a count (the error says why).
func (r *Reconciler) decide(ctx context.Context, key string, fhpa *autoscalingv1alpha1.FederatedHPA, status *autoscalingv2.HorizontalPodAutoscalerStatus,
	agg *aggregate, current int32, now time.Time) (int32, string, error) {
	minR, maxR := *fhpa.Spec.MinReplicas, fhpa.Spec.MaxReplicas
	switch {
	case current > maxR:
		return maxR, "Current number of replicas above Spec.MaxReplicas", nil
	case current < minR:
		return minR, "Current number of replicas below Spec.MinReplicas", nil
	}
	proposal, metric, err := r.proposal(ctx, key, fhpa, status, agg, current, now)
	if proposal < 0 {
		return -1, "", err
	}
	reason := ""
	switch {
	case proposal > current:
		reason = metric + " above target"
	case proposal < current:
		reason = "All metrics below target"
	}
	out := r.norm.Normalize(key, current, proposal, replicas.Bounds{Min: minR, Max: maxR}, fhpa.Spec.Behavior, now)
	setCondition(status, autoscalingv2.AbleToScale, corev1.ConditionTrue, out.StabilizedReason, "%s", out.StabilizedMessage)
	limited := corev1.ConditionFalse
	if out.Limited {
		limited = corev1.ConditionTrue
	}
	setCondition(status, autoscalingv2.ScalingLimited, limited, out.LimitedReason, "%s", out.LimitedMessage)
	return out.Replicas, reason, err
}

// proposal is the largest replica count the metrics propose, with that
// metric's name; -1 when every metric failed (or some failed and the rest
// would scale down).
func (r *Reconciler) proposal(ctx context.Context, key string, fhpa *autoscalingv1alpha1.FederatedHPA, status *autoscalingv2.HorizontalPodAutoscalerStatus,
	agg *aggregate, current int32, now time.Time) (int32, string, error) {
	fail := func(reason string, err error) (int32, string, error) {
		setCondition(status, autoscalingv2.ScalingActive, corev1.ConditionFalse, reason, "the HPA target's pods could not be selected: %v", boundedtext.Error(err))
		return -1, "", err
	}
	if agg.selectErr != nil && len(agg.pods) == 0 {
		return fail(reasonInvalidSelector, agg.selectErr)
	}
	selector, err := labels.Parse(agg.selector)
	if err != nil {
		r.recorder.Eventf(fhpa, corev1.EventTypeWarning, reasonInvalidSelector, "couldn't convert selector into a corresponding internal selector object: %v", err)
		return fail(reasonInvalidSelector, err)
	}
	if other := r.claimSelector(key, fhpa.Namespace, selector, agg.pods); other != "" {
		err := fmt.Errorf("pods by selector %s are controlled by multiple HPAs: [%s %s]", agg.selector, key, other)
		r.recorder.Event(fhpa, corev1.EventTypeWarning, reasonAmbiguousSelector, err.Error())
		return fail(reasonAmbiguousSelector, err)
	}
	calibration := float64(agg.spec) / float64(max(current, 1))
	status.CurrentMetrics = make([]autoscalingv2.MetricStatus, len(fhpa.Spec.Metrics))
	best, bestName := int32(-1), ""
	var firstErr error
	var firstReason string
	failed := 0
	for i, spec := range fhpa.Spec.Metrics {
		n, name, ms, reason, err := r.metricProposal(ctx, fhpa, spec, agg, current, calibration, now)
		if err != nil {
			failed++
			r.recorder.Eventf(fhpa, corev1.EventTypeWarning, reason, "%v", boundedtext.Error(err))
			if firstErr == nil {
				firstErr, firstReason = err, reason
			}
			continue
		}
		status.CurrentMetrics[i] = ms
		if n > best {
			best, bestName = n, name
		}
	}
	if failed == len(fhpa.Spec.Metrics) || (failed > 0 && best < current) {
		setCondition(status, autoscalingv2.ScalingActive, corev1.ConditionFalse, firstReason, "the HPA was unable to compute the replica count: %v", boundedtext.Error(firstErr))
		return -1, "", fmt.Errorf("invalid metrics (%d invalid out of %d), first error is: %w", failed, len(fhpa.Spec.Metrics), firstErr)
	}
	setCondition(status, autoscalingv2.ScalingActive, corev1.ConditionTrue, reasonValidMetricFound, "the HPA was able to successfully calculate a replica count from %s", bestName)
	if firstErr != nil {
		return best, bestName, fmt.Errorf("invalid metrics (%d invalid out of %d), first error is: %w", failed, len(fhpa.Spec.Metrics), firstErr)
	}
	return best, bestName, nil
}

// claimSelector records key's selector and returns another FederatedHPA
// of the namespace whose selector also picks one of pods.
func (r *Reconciler) claimSelector(key, namespace string, selector labels.Selector, pods []*corev1.Pod) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.selectors[key] = selectorOf{namespace: namespace, selector: selector}
	others := make([]string, 0, len(r.selectors))
	for k := range r.selectors {
		others = append(others, k)
	}
	slices.Sort(others)
	for _, k := range others {
		s := r.selectors[k]
		if k == key || s.namespace != namespace {
			continue
		}
		for _, pod := range pods {
			if s.selector.Matches(labels.Set(pod.Labels)) {
				return k
			}
		}
	}
	return ""
}

// metricProposal computes one metric's proposal, its name in events, its
// status entry, or the reason it failed.
func (r *Reconciler) metricProposal(ctx context.Context, fhpa *autoscalingv1alpha1.FederatedHPA, spec autoscalingv2.MetricSpec, agg *aggregate,
	current int32, calibration float64, now time.Time) (int32, string, autoscalingv2.MetricStatus, string, error) {
	switch spec.Type {
	case autoscalingv2.ResourceMetricSourceType:
		if spec.Resource == nil {
			return 0, "", autoscalingv2.MetricStatus{}, "FailedGetResourceMetric", errors.New("resource metric without a resource source")
		}
		n, name, cur, err := r.resourceProposal(ctx, fhpa.Namespace, spec.Resource.Name, "", spec.Resource.Target, agg, current, calibration, now)
		if err != nil {
			return 0, "", autoscalingv2.MetricStatus{}, "FailedGetResourceMetric", err
		}
		return n, name, autoscalingv2.MetricStatus{Type: spec.Type, Resource: &autoscalingv2.ResourceMetricStatus{Name: spec.Resource.Name, Current: cur}}, "", nil
	case autoscalingv2.ContainerResourceMetricSourceType:
		if spec.ContainerResource == nil {
			return 0, "", autoscalingv2.MetricStatus{}, "FailedGetContainerResourceMetric", errors.New("container resource metric without a source")
		}
		cr := spec.ContainerResource
		n, name, cur, err := r.resourceProposal(ctx, fhpa.Namespace, cr.Name, cr.Container, cr.Target, agg, current, calibration, now)
		if err != nil {
			return 0, "", autoscalingv2.MetricStatus{}, "FailedGetContainerResourceMetric", err
		}
		return n, strings.Replace(name, "resource", "container resource", 1), autoscalingv2.MetricStatus{Type: spec.Type,
			ContainerResource: &autoscalingv2.ContainerResourceMetricStatus{Name: cr.Name, Container: cr.Container, Current: cur}}, "", nil
	case autoscalingv2.PodsMetricSourceType:
		if spec.Pods == nil {
			return 0, "", autoscalingv2.MetricStatus{}, "FailedGetPodsMetric", errors.New("pods metric without a pods source")
		}
		n, ms, err := r.podsProposal(ctx, fhpa.Namespace, spec.Pods, agg, current, calibration, now)
		if err != nil {
			return 0, "", autoscalingv2.MetricStatus{}, "FailedGetPodsMetric", err
		}
		return n, "pods metric " + spec.Pods.Metric.Name, ms, "", nil
	case autoscalingv2.ObjectMetricSourceType:
		if spec.Object == nil {
			return 0, "", autoscalingv2.MetricStatus{}, "FailedGetObjectMetric", errors.New("object metric without an object source")
		}
		n, name, ms, err := r.objectProposal(ctx, fhpa.Namespace, spec.Object, agg, current, calibration)
		if err != nil {
			return 0, "", autoscalingv2.MetricStatus{}, "FailedGetObjectMetric", err
		}
		return n, name, ms, "", nil
	default:
		return 0, "", autoscalingv2.MetricStatus{}, reasonInvalidMetricSourceType, fmt.Errorf("unknown metric source type %q", spec.Type)
	}
}

func (r *Reconciler) resourceProposal(ctx context.Context, namespace string, res corev1.ResourceName, container string, target autoscalingv2.MetricTarget,
	agg *aggregate, current int32, calibration float64, now time.Time) (int32, string, autoscalingv2.MetricValueStatus, error) {
	start := time.Now()
	samples, err := resourceSamples(ctx, agg, namespace, res, container)
	metrics.FederatedHPAMetricPulled(metrics.MetricTypeResource, start, err)
	if err != nil {
		return 0, "", autoscalingv2.MetricValueStatus{}, err
	}
	switch {
	case target.AverageValue != nil:
		n, avg, err := r.calc.PlainAverage(current, replicas.MilliValue(*target.AverageValue), res, samples, agg.pods, calibration, now)
		if err != nil {
			return 0, "", autoscalingv2.MetricValueStatus{}, fmt.Errorf("failed to get %s usage: %w", res, err)
		}
		return n, fmt.Sprintf("%s resource", res), autoscalingv2.MetricValueStatus{AverageValue: resource.NewMilliQuantity(avg, resource.DecimalSI)}, nil
	case target.AverageUtilization != nil:
		u, err := r.calc.ResourceUtilization(current, *target.AverageUtilization, res, container, samples, agg.pods, calibration, now)
		if err != nil {
			return 0, "", autoscalingv2.MetricValueStatus{}, fmt.Errorf("failed to get %s utilization: %w", res, err)
		}
		return u.Replicas, fmt.Sprintf("%s resource utilization (percentage of request)", res),
			autoscalingv2.MetricValueStatus{AverageUtilization: ptr.To(u.Utilization), AverageValue: resource.NewMilliQuantity(u.RawAverage, resource.DecimalSI)}, nil
	default:
		return 0, "", autoscalingv2.MetricValueStatus{}, fmt.Errorf("invalid resource metric source: neither a utilization target nor a value target is set")
	}
}
