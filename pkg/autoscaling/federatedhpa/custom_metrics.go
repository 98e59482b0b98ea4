package federatedhpa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/pkg/autoscaling/federatedhpa/replicas"
	"github.com/propel-mc/propel/pkg/metrics"
)

// customMetricsGroup is the custom metrics API a member may serve (for
// example through prometheus-adapter); Propel asks each member directly.
const customMetricsGroup = "custom.metrics.k8s.io"

// maxMetricValues bounds what one member's answer may hold.
const maxMetricValues = 100000

// metricValueList is the part of a custom metrics MetricValueList the
// controller reads (both v1beta1 and v1beta2 have these fields).
type metricValueList struct {
	Items []struct {
		DescribedObject struct {
			Name string `json:"name"`
		} `json:"describedObject"`
		Timestamp     metav1.Time       `json:"timestamp"`
		WindowSeconds *int64            `json:"windowSeconds"`
		Value         resource.Quantity `json:"value"`
	} `json:"items"`
}

// parseMetricValues decodes cluster's MetricValueList into per-object
// samples (milli-units); values of the same object are added up, as
// Karmada's metrics adapter does across clusters. Negative values are left
// out and huge ones capped (counted in report).
func parseMetricValues(data []byte, into replicas.Samples, cluster string, report *sampleReport) error {
	var list metricValueList
	if err := json.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("decode custom metrics: %w", err)
	}
	if len(list.Items) > maxMetricValues {
		return fmt.Errorf("custom metrics answer holds %d values, more than %d", len(list.Items), maxMetricValues)
	}
	for _, item := range list.Items {
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

// customMetricsPath is the member's custom metrics API path, or "" when it
// serves none.
func customMetricsPath(st *memberState) (string, error) {
	groups, err := st.member.Kube.Discovery().ServerGroups()
	if err != nil {
		return "", fmt.Errorf("cluster %s: discovery: %w", st.cluster, err)
	}
	for _, g := range groups.Groups {
		if g.Name == customMetricsGroup {
			return "/apis/" + customMetricsGroup + "/" + g.PreferredVersion.Version, nil
		}
	}
	return "", nil
}

// customMetric asks every member that serves the custom metrics API for
// path (relative to the API) and adds up the answers.
func customMetric(ctx context.Context, agg *aggregate, rel string, params url.Values, onlyWithPods bool) (replicas.Samples, error) {
	samples := replicas.Samples{}
	served := 0
	for _, st := range agg.members {
		if onlyWithPods && len(st.pods) == 0 {
			continue
		}
		base, err := customMetricsPath(st)
		if err != nil {
			return nil, err
		}
		if base == "" {
			continue
		}
		served++
		req := st.member.Kube.Discovery().RESTClient().Get().AbsPath(base + rel)
		for k, vs := range params {
			for _, v := range vs {
				req = req.Param(k, v)
			}
		}
		data, err := req.DoRaw(ctx)
		if err != nil {
			return nil, fmt.Errorf("cluster %s: get custom metric %s: %w", st.cluster, rel, err)
		}
		if err := parseMetricValues(data, samples, st.cluster, &agg.report); err != nil {
			return nil, fmt.Errorf("cluster %s: %w", st.cluster, err)
		}
	}
	if served == 0 {
		return nil, errors.New("no target cluster serves " + customMetricsGroup)
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("no metrics returned from custom metrics API for %s", rel)
	}
	return samples, nil
}

func metricSelector(id autoscalingv2.MetricIdentifier) (url.Values, error) {
	params := url.Values{}
	if id.Selector != nil {
		sel, err := metav1.LabelSelectorAsSelector(id.Selector)
		if err != nil {
			return nil, fmt.Errorf("metric %s: selector: %w", id.Name, err)
		}
		params.Set("metricLabelSelector", sel.String())
	}
	return params, nil
}

// podsProposal proposes replicas for a Pods metric (a per-pod average
// target) from the members' custom metrics of the selected pods.
func (r *Reconciler) podsProposal(ctx context.Context, namespace string, src *autoscalingv2.PodsMetricSource, agg *aggregate,
	current int32, calibration float64, now time.Time) (int32, autoscalingv2.MetricStatus, error) {
	if src.Target.AverageValue == nil {
		return 0, autoscalingv2.MetricStatus{}, fmt.Errorf("pods metric %s has no averageValue target", src.Metric.Name)
	}
	params, err := metricSelector(src.Metric)
	if err != nil {
		return 0, autoscalingv2.MetricStatus{}, err
	}
	params.Set("labelSelector", agg.selector)
	start := time.Now()
	samples, err := customMetric(ctx, agg, "/namespaces/"+url.PathEscape(namespace)+"/pods/*/"+url.PathEscape(src.Metric.Name), params, true)
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
	params, err := metricSelector(src.Metric)
	if err != nil {
		return 0, "", autoscalingv2.MetricStatus{}, err
	}
	rel := "/namespaces/" + url.PathEscape(namespace) + "/" + gvr.Resource + "/" + url.PathEscape(ref.Name) + "/" + url.PathEscape(src.Metric.Name)
	if gvr.Resource == "namespaces" {
		rel = "/namespaces/" + url.PathEscape(ref.Name) + "/metrics/" + url.PathEscape(src.Metric.Name)
	}
	start := time.Now()
	samples, err := customMetric(ctx, agg, rel, params, false)
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
