package federatedhpa

import (
	"context"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	"github.com/propel-mc/propel/internal/controllers/autoscaling/federatedhpa/replicas"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

var decideNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// readyMember is memberWithUsage with every pod running and ready since
// long before decideNow (so its cpu sample counts), plus pods of missing
// that the metrics server has no sample for.
func readyMember(t *testing.T, cluster string, usage map[string]string, missing ...string) *memberState {
	t.Helper()
	st := memberWithUsage(t, cluster, usage)
	for _, name := range missing {
		st.pods = append(st.pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "web"}}})
	}
	started := metav1.NewTime(decideNow.Add(-time.Hour))
	for _, pod := range st.pods {
		pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &started,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: started}}}
	}
	return st
}

// aggregateOf is the workload over members with current template replicas.
func aggregateOf(current int32, members ...*memberState) *aggregate {
	agg := &aggregate{members: members, spec: current, status: current, selector: "app=web"}
	for _, st := range members {
		agg.pods = append(agg.pods, st.pods...)
	}
	return agg
}

func cpuAverageValue(milli int64) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: resource.NewMilliQuantity(milli, resource.DecimalSI)},
	}}
}

func decideFHPA(minR, maxR int32, behavior *autoscalingv2.HorizontalPodAutoscalerBehavior, metrics ...autoscalingv2.MetricSpec) *autoscalingv1alpha1.FederatedHPA {
	return &autoscalingv1alpha1.FederatedHPA{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec:       autoscalingv1alpha1.FederatedHPASpec{MinReplicas: ptr.To(minR), MaxReplicas: maxR, Behavior: behavior, Metrics: metrics},
	}
}

func decideReconciler() (*Reconciler, *record.FakeRecorder) {
	events := record.NewFakeRecorder(100)
	return New(Deps{Recorder: events}, Options{Tolerance: 0.1, CPUInitializationPeriod: 5 * time.Minute, InitialReadinessDelay: 30 * time.Second}), events
}

func condition(status *autoscalingv2.HorizontalPodAutoscalerStatus, t autoscalingv2.HorizontalPodAutoscalerConditionType) autoscalingv2.HorizontalPodAutoscalerCondition {
	for _, c := range status.Conditions {
		if c.Type == t {
			return c
		}
	}
	return autoscalingv2.HorizontalPodAutoscalerCondition{}
}

// TestDecide covers the replica decision of one reconcile: the bounds
// before any metric is read, the tolerance, the per-pod average, the
// missing-pod rule, max and the default scale-up rate, and behaviour
// policies.
func TestDecide(t *testing.T) {
	fourAt := func(cpu string) map[string]string {
		return map[string]string{"web-0": cpu, "web-1": cpu, "web-2": cpu, "web-3": cpu}
	}
	onePodPerMinute := &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: ptr.To[int32](0),
		Policies:                   []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 60}},
	}}
	halfPerMinuteDown := &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: ptr.To[int32](0),
		Policies:                   []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 50, PeriodSeconds: 60}},
	}}
	for _, tc := range []struct {
		name          string
		minR, maxR    int32
		behavior      *autoscalingv2.HorizontalPodAutoscalerBehavior
		current       int32
		usage         map[string]string
		missing       []string
		want          int32
		wantReason    string
		wantLimited   string
		wantLimitedOn bool
	}{
		{name: "above max is cut to max before metrics", minR: 1, maxR: 3, current: 5, want: 3, wantReason: "Current number of replicas above Spec.MaxReplicas"},
		{name: "below min is raised to min before metrics", minR: 4, maxR: 10, current: 2, want: 4, wantReason: "Current number of replicas below Spec.MinReplicas"},
		{name: "within tolerance keeps the count", minR: 1, maxR: 10, current: 4, usage: fourAt("105m"), want: 4, wantLimited: replicas.ReasonDesiredWithinRange},
		{name: "double usage doubles", minR: 1, maxR: 10, current: 4, usage: fourAt("200m"), want: 8, wantReason: "cpu resource above target", wantLimited: replicas.ReasonDesiredWithinRange},
		{name: "half usage halves", minR: 1, maxR: 10, current: 4, usage: fourAt("50m"), want: 2, wantReason: "All metrics below target", wantLimited: replicas.ReasonDesiredWithinRange},
		{name: "max caps the proposal", minR: 1, maxR: 6, current: 4, usage: fourAt("200m"), want: 6, wantReason: "cpu resource above target",
			wantLimited: replicas.ReasonTooManyReplicas, wantLimitedOn: true},
		{name: "min floors the proposal", minR: 3, maxR: 10, current: 4, usage: fourAt("10m"), want: 3, wantReason: "All metrics below target",
			wantLimited: replicas.ReasonTooFewReplicas, wantLimitedOn: true},
		{name: "default scale-up rate is twice the count", minR: 1, maxR: 100, current: 4, usage: fourAt("1000m"), want: 8, wantReason: "cpu resource above target",
			wantLimited: replicas.ReasonScaleUpLimit, wantLimitedOn: true},
		{name: "missing pods count as at target when scaling down", minR: 1, maxR: 10, current: 4,
			usage: map[string]string{"web-0": "20m", "web-1": "20m"}, missing: []string{"web-2", "web-3"}, want: 3, wantReason: "All metrics below target",
			wantLimited: replicas.ReasonDesiredWithinRange},
		{name: "scale-up policy of one pod a minute", minR: 1, maxR: 10, behavior: onePodPerMinute, current: 4, usage: fourAt("200m"), want: 5,
			wantReason: "cpu resource above target", wantLimited: replicas.ReasonScaleUpLimit, wantLimitedOn: true},
		{name: "scale-down policy of half a minute", minR: 1, maxR: 10, behavior: halfPerMinuteDown, current: 4, usage: fourAt("10m"), want: 2,
			wantReason: "All metrics below target", wantLimited: replicas.ReasonScaleDownLimit, wantLimitedOn: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := decideReconciler()
			fhpa := decideFHPA(tc.minR, tc.maxR, tc.behavior, cpuAverageValue(100))
			agg := aggregateOf(tc.current, readyMember(t, "member1", tc.usage, tc.missing...))
			status := &autoscalingv2.HorizontalPodAutoscalerStatus{}
			got, reason, err := r.decide(context.Background(), "default/web", fhpa, status, agg, tc.current, decideNow)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || reason != tc.wantReason {
				t.Fatalf("decide = %d %q, want %d %q", got, reason, tc.want, tc.wantReason)
			}
			limited := condition(status, autoscalingv2.ScalingLimited)
			if limited.Reason != tc.wantLimited || (limited.Status == corev1.ConditionTrue) != tc.wantLimitedOn {
				t.Errorf("ScalingLimited %s %s, want %s limited=%v", limited.Status, limited.Reason, tc.wantLimited, tc.wantLimitedOn)
			}
		})
	}
}

// TestDecideScaleDownStabilized: a scale-down within the stabilisation
// window keeps the highest recent recommendation.
func TestDecideScaleDownStabilized(t *testing.T) {
	events := record.NewFakeRecorder(100)
	r := New(Deps{Recorder: events}, Options{Tolerance: 0.1, DownscaleStabilization: 5 * time.Minute})
	fhpa := decideFHPA(1, 10, nil, cpuAverageValue(100))
	high := aggregateOf(4, readyMember(t, "member1", map[string]string{"web-0": "150m", "web-1": "150m", "web-2": "150m", "web-3": "150m"}))
	status := &autoscalingv2.HorizontalPodAutoscalerStatus{}
	if got, _, err := r.decide(context.Background(), "default/web", fhpa, status, high, 4, decideNow); err != nil || got != 6 {
		t.Fatalf("first decide = %d, %v; want 6", got, err)
	}
	low := aggregateOf(6, readyMember(t, "member1", map[string]string{"web-0": "10m", "web-1": "10m", "web-2": "10m", "web-3": "10m", "web-4": "10m", "web-5": "10m"}))
	got, _, err := r.decide(context.Background(), "default/web", fhpa, status, low, 6, decideNow.Add(time.Minute))
	if err != nil || got != 6 {
		t.Fatalf("decide within the window = %d, %v; want 6 (the recent recommendation)", got, err)
	}
	if c := condition(status, autoscalingv2.AbleToScale); c.Reason != replicas.ReasonScaleDownStabilized {
		t.Errorf("AbleToScale reason %q, want %s", c.Reason, replicas.ReasonScaleDownStabilized)
	}
	got, _, err = r.decide(context.Background(), "default/web", fhpa, status, low, 6, decideNow.Add(10*time.Minute))
	if err != nil || got != 1 {
		t.Fatalf("decide after the window = %d, %v; want 1", got, err)
	}
}

// TestDecideFailedMetrics: with every metric failing, or one failing
// while the others would scale down, there is no count (-1) and
// ScalingActive is False; with one failing and another scaling up, the up
// count stands and the error is still returned.
func TestDecideFailedMetrics(t *testing.T) {
	noSource := autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType}
	unknown := autoscalingv2.MetricSpec{Type: "Bogus"}
	for _, tc := range []struct {
		name       string
		metrics    []autoscalingv2.MetricSpec
		usage      string
		want       int32
		wantReason string
		wantActive corev1.ConditionStatus
	}{
		{name: "all fail", metrics: []autoscalingv2.MetricSpec{noSource, unknown}, usage: "100m", want: -1, wantReason: "FailedGetPodsMetric", wantActive: corev1.ConditionFalse},
		{name: "unknown type", metrics: []autoscalingv2.MetricSpec{unknown}, usage: "100m", want: -1, wantReason: reasonInvalidMetricSourceType, wantActive: corev1.ConditionFalse},
		{name: "one fails, other scales down", metrics: []autoscalingv2.MetricSpec{cpuAverageValue(100), noSource}, usage: "10m", want: -1,
			wantReason: "FailedGetPodsMetric", wantActive: corev1.ConditionFalse},
		{name: "one fails, other scales up", metrics: []autoscalingv2.MetricSpec{noSource, cpuAverageValue(100)}, usage: "200m", want: 4,
			wantReason: reasonValidMetricFound, wantActive: corev1.ConditionTrue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, events := decideReconciler()
			fhpa := decideFHPA(1, 10, nil, tc.metrics...)
			agg := aggregateOf(2, readyMember(t, "member1", map[string]string{"web-0": tc.usage, "web-1": tc.usage}))
			status := &autoscalingv2.HorizontalPodAutoscalerStatus{}
			got, _, err := r.decide(context.Background(), "default/web", fhpa, status, agg, 2, decideNow)
			if err == nil || !strings.Contains(err.Error(), "invalid metrics") {
				t.Errorf("error %v, want the invalid metrics summary", err)
			}
			if got != tc.want {
				t.Errorf("decide = %d, want %d", got, tc.want)
			}
			if c := condition(status, autoscalingv2.ScalingActive); c.Status != tc.wantActive || c.Reason != tc.wantReason {
				t.Errorf("ScalingActive %s %s, want %s %s", c.Status, c.Reason, tc.wantActive, tc.wantReason)
			}
			if len(events.Events) == 0 {
				t.Error("no warning event for the failed metric")
			}
		})
	}
}

// TestDecideAmbiguousSelector: a second FederatedHPA of the namespace
// whose selector picks the same pods gets no count and an
// AmbiguousSelector condition naming both.
func TestDecideAmbiguousSelector(t *testing.T) {
	r, _ := decideReconciler()
	fhpa := decideFHPA(1, 10, nil, cpuAverageValue(100))
	agg := aggregateOf(2, readyMember(t, "member1", map[string]string{"web-0": "100m", "web-1": "100m"}))
	if _, _, err := r.decide(context.Background(), "default/a", fhpa, &autoscalingv2.HorizontalPodAutoscalerStatus{}, agg, 2, decideNow); err != nil {
		t.Fatal(err)
	}
	status := &autoscalingv2.HorizontalPodAutoscalerStatus{}
	got, _, err := r.decide(context.Background(), "default/b", fhpa, status, agg, 2, decideNow)
	if got != -1 || err == nil || !strings.Contains(err.Error(), "[default/b default/a]") {
		t.Fatalf("decide = %d, %v; want -1 and both HPAs named", got, err)
	}
	if c := condition(status, autoscalingv2.ScalingActive); c.Status != corev1.ConditionFalse || c.Reason != reasonAmbiguousSelector {
		t.Errorf("ScalingActive %s %s, want False %s", c.Status, c.Reason, reasonAmbiguousSelector)
	}
}
