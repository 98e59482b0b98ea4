package federatedhpa

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	custommetricsapi "k8s.io/metrics/pkg/apis/custom_metrics/v1beta2"
	customclient "k8s.io/metrics/pkg/client/custom_metrics"

	"github.com/propel-mc/propel/internal/controllers/autoscaling/federatedhpa/replicas"
	"github.com/propel-mc/propel/internal/shared/metrics"
)

// maxMetricValues bounds what one member's answer may hold.
const maxMetricValues = 100000

// addMetricValues adds cluster's metric values into per-object samples
// (milli-units); values of the same object are added up, as Karmada's
// metrics adapter does across clusters. Negative values are left out and
// huge ones capped (counted in report).
func addMetricValues(items []custommetricsapi.MetricValue, into replicas.Samples, cluster string, report *sampleReport) error {
	if len(items) > maxMetricValues {
		return fmt.Errorf("custom metrics answer holds %d values, more than %d", len(items), maxMetricValues)
	}
	for _, item := range items {
		v, ok := report.milliValue(cluster, item.Value)
		if !ok {
			continue
		}
		s := into[item.DescribedObject.Name]
		s.Value = replicas.AddSaturating(s.Value, v)
		s.Timestamp = item.Timestamp.Time
		if item.WindowSeconds != nil && *item.WindowSeconds >= 0 && *item.WindowSeconds < 86400 {
			s.Window = time.Duration(*item.WindowSeconds) * time.Second
		}
		into[item.DescribedObject.Name] = s
	}
	return nil
}

// customMetric asks every member that serves the custom metrics API (in
// the version discovery prefers) for metric, through get, and adds up
// the answers. A member whose custom metrics API cannot be found is left
// out; when none serves it, the error says why for the first.
func customMetric(agg *aggregate, metric string, onlyWithPods bool,
	get func(customclient.CustomMetricsClient) ([]custommetricsapi.MetricValue, error)) (replicas.Samples, error) {
	samples := replicas.Samples{}
	served := 0
	var notServed error
	for _, st := range agg.members {
		if onlyWithPods && len(st.pods) == 0 {
			continue
		}
		if _, err := st.metrics.customAPI.PreferredVersion(); err != nil {
			if notServed == nil {
				notServed = fmt.Errorf("cluster %s: %w", st.cluster, err)
			}
			continue
		}
		served++
		items, err := get(st.metrics.custom)
		if err != nil {
			return nil, fmt.Errorf("cluster %s: get custom metric %s: %w", st.cluster, metric, err)
		}
		if err := addMetricValues(items, samples, st.cluster, &agg.report); err != nil {
			return nil, fmt.Errorf("cluster %s: %w", st.cluster, err)
		}
	}
	if served == 0 {
		if notServed != nil {
			return nil, fmt.Errorf("no target cluster serves the custom metrics API: %w", notServed)
		}
		return nil, errors.New("no target cluster serves the custom metrics API")
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("no metrics returned from custom metrics API for %s", metric)
	}
	return samples, nil
}

// metricSelector is the metric's label selector (everything when unset).
func metricSelector(id autoscalingv2.MetricIdentifier) (labels.Selector, error) {
	if id.Selector == nil {
		return labels.Everything(), nil
	}
	sel, err := metav1.LabelSelectorAsSelector(id.Selector)
	if err != nil {
		return nil, fmt.Errorf("metric %s: selector: %w", id.Name, err)
	}
	return sel, nil
}

// podsProposal proposes replicas for a Pods metric (a per-pod average
// target) from the members' custom metrics of the selected pods.
func (r *Reconciler) podsProposal(ctx context.Context, namespace string, src *autoscalingv2.PodsMetricSource, agg *aggregate,
	current int32, calibration float64, now time.Time) (int32, autoscalingv2.MetricStatus, error) {
	if src.Target.AverageValue == nil {
		return 0, autoscalingv2.MetricStatus{}, fmt.Errorf("pods metric %s has no averageValue target", src.Metric.Name)
	}
	metricSel, err := metricSelector(src.Metric)
	if err != nil {
		return 0, autoscalingv2.MetricStatus{}, err
	}
	podSel, err := labels.Parse(agg.selector)
	if err != nil {
		return 0, autoscalingv2.MetricStatus{}, fmt.Errorf("pods metric %s: selector %q: %w", src.Metric.Name, agg.selector, err)
	}
	start := time.Now()
	samples, err := customMetric(agg, src.Metric.Name, true, func(c customclient.CustomMetricsClient) ([]custommetricsapi.MetricValue, error) {
		list, err := c.NamespacedMetrics(namespace).GetForObjects(schema.GroupKind{Kind: "Pod"}, podSel, src.Metric.Name, metricSel)
		if err != nil {
			return nil, err
		}
		return list.Items, nil
	})
	metrics.FederatedHPAMetricPulled(metrics.MetricTypeRaw, start, err)
	if err != nil {
		return 0, autoscalingv2.MetricStatus{}, fmt.Errorf("unable to get metric %s: %w", src.Metric.Name, err)
	}
	n, avg, err := r.calc.PlainAverage(current, replicas.MilliValue(*src.Target.AverageValue), "", samples, agg.pods, calibration, now)
	if err != nil {
		return 0, autoscalingv2.MetricStatus{}, fmt.Errorf("failed to get pods metric value: %w", err)
	}
	return n, autoscalingv2.MetricStatus{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricStatus{
		Metric: src.Metric, Current: autoscalingv2.MetricValueStatus{AverageValue: resource.NewMilliQuantity(avg, resource.DecimalSI)},
	}}, nil
}

// objectProposal proposes replicas for an Object metric from the sum of
// the members' values for the described object.
func (r *Reconciler) objectProposal(ctx context.Context, namespace string, src *autoscalingv2.ObjectMetricSource, agg *aggregate,
	current int32, calibration float64) (int32, string, autoscalingv2.MetricStatus, error) {
	ref := src.DescribedObject
	gvr, err := r.mapping(schemaGVK(ref.APIVersion, ref.Kind))
	if err != nil {
		return 0, "", autoscalingv2.MetricStatus{}, fmt.Errorf("unable to resolve %s %s: %w", ref.Kind, ref.Name, err)
	}
	metricSel, err := metricSelector(src.Metric)
	if err != nil {
		return 0, "", autoscalingv2.MetricStatus{}, err
	}
	gk := schema.GroupKind{Group: gvr.Group, Kind: ref.Kind}
	start := time.Now()
	samples, err := customMetric(agg, src.Metric.Name, false, func(c customclient.CustomMetricsClient) ([]custommetricsapi.MetricValue, error) {
		var value *custommetricsapi.MetricValue
		var err error
		if gk.Group == "" && gk.Kind == "Namespace" {
			// A Namespace's metric is its own namespace's, as in
			// Karmada and Kubernetes: the reference cannot reach
			// another namespace.
			value, err = c.RootScopedMetrics().GetForObject(gk, namespace, src.Metric.Name, metricSel)
		} else {
			value, err = c.NamespacedMetrics(namespace).GetForObject(gk, ref.Name, src.Metric.Name, metricSel)
		}
		if err != nil {
			return nil, err
		}
		return []custommetricsapi.MetricValue{*value}, nil
	})
	metrics.FederatedHPAMetricPulled(metrics.MetricTypeObject, start, err)
	if err != nil {
		return 0, "", autoscalingv2.MetricStatus{}, fmt.Errorf("unable to get metric %s: %s/%s: %w", src.Metric.Name, ref.Kind, ref.Name, err)
	}
	var usage int64
	for _, s := range samples {
		usage = replicas.AddSaturating(usage, s.Value)
	}
	status := &autoscalingv2.ObjectMetricStatus{Metric: src.Metric, DescribedObject: ref}
	switch {
	case src.Target.Type == autoscalingv2.ValueMetricType && src.Target.Value != nil:
		n := r.calc.ObjectValue(current, usage, replicas.MilliValue(*src.Target.Value), replicas.ReadyRunning(agg.pods), calibration)
		status.Current.Value = resource.NewMilliQuantity(usage, resource.DecimalSI)
		return n, fmt.Sprintf("%s metric %s", ref.Kind, src.Metric.Name), autoscalingv2.MetricStatus{Type: autoscalingv2.ObjectMetricSourceType, Object: status}, nil
	case src.Target.Type == autoscalingv2.AverageValueMetricType && src.Target.AverageValue != nil:
		n := r.calc.ObjectAverageValue(usage, replicas.MilliValue(*src.Target.AverageValue), agg.status, calibration)
		avg := usage
		if agg.status > 0 {
			avg = usage / int64(agg.status)
			if usage%int64(agg.status) != 0 {
				avg++
			}
		}
		// Karmada reports this case without the described object.
		status.DescribedObject = autoscalingv2.CrossVersionObjectReference{}
		status.Current.AverageValue = resource.NewMilliQuantity(avg, resource.DecimalSI)
		name := fmt.Sprintf("external metric %s(%s)", src.Metric.Name, selectorString(src.Metric.Selector))
		return n, name, autoscalingv2.MetricStatus{Type: autoscalingv2.ObjectMetricSourceType, Object: status}, nil
	default:
		return 0, "", autoscalingv2.MetricStatus{}, fmt.Errorf("invalid object metric source: neither a value target nor an average value target is set")
	}
}

func selectorString(s *metav1.LabelSelector) string {
	if s == nil {
		return ""
	}
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return strings.TrimSpace(s.String())
	}
	return sel.String()
}

func schemaGVK(apiVersion, kind string) schema.GroupVersionKind {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	return gv.WithKind(kind)
}
