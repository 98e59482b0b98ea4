package replicas

import (
	"fmt"
	"math"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

var now = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func calc() Calculator {
	return Calculator{Tolerance: 0.1, CPUInitializationPeriod: 5 * time.Minute, InitialReadinessDelay: 30 * time.Second}
}

// readyPods are n running pods started 10 minutes ago, ready since, each
// requesting cpu, with a sample of usage milli-cpu each.
func readyPods(prefix string, n int, request string, usage int64) ([]*corev1.Pod, Samples) {
	var pods []*corev1.Pod
	samples := Samples{}
	start := metav1.NewTime(now.Add(-10 * time.Minute))
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%s-%d", prefix, i)
		pods = append(pods, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(request)}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &start,
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: start}}},
		})
		samples[name] = Sample{Value: usage, Timestamp: now.Add(-5 * time.Second), Window: 15 * time.Second}
	}
	return pods, samples
}

// TestWorkedExampleDivided is the spec's A.8.1: 4 pods of 100m at 80m,
// target 50% → 7; then 7 pods at 35% → 5, held at 7 by the stabilisation
// window.
func TestWorkedExampleDivided(t *testing.T) {
	pods, samples := readyPods("nginx", 4, "100m", 80)
	u, err := calc().ResourceUtilization(4, 50, corev1.ResourceCPU, "", samples, pods, 1, now)
	if err != nil {
		t.Fatal(err)
	}
	if u.Replicas != 7 || u.Utilization != 80 || u.RawAverage != 80 {
		t.Fatalf("got %+v, want 7 replicas at 80%% (80m)", u)
	}
	n := &Normalizer{DownscaleStabilization: 5 * time.Minute}
	n.Seed("default/nginx", 4, now)
	out := n.Normalize("default/nginx", 4, u.Replicas, Bounds{Min: 1, Max: 10}, nil, now)
	if out.Replicas != 7 || out.StabilizedReason != ReasonReadyForNewScale || out.Limited || out.LimitedReason != ReasonDesiredWithinRange {
		t.Fatalf("first normalisation %+v", out)
	}
	later := now.Add(15 * time.Second)
	pods, samples = readyPods("nginx", 7, "100m", 35)
	u, err = calc().ResourceUtilization(7, 50, corev1.ResourceCPU, "", samples, pods, 1, later)
	if err != nil || u.Replicas != 5 {
		t.Fatalf("second proposal %+v, %v; want 5", u, err)
	}
	out = n.Normalize("default/nginx", 7, u.Replicas, Bounds{Min: 1, Max: 10}, nil, later)
	if out.Replicas != 7 || out.StabilizedReason != ReasonScaleDownStabilized {
		t.Fatalf("second normalisation %+v, want 7 ScaleDownStabilized", out)
	}
	// After the window the lower recommendation wins.
	after := now.Add(6 * time.Minute)
	out = n.Normalize("default/nginx", 7, 5, Bounds{Min: 1, Max: 10}, nil, after)
	if out.Replicas != 5 {
		t.Fatalf("after the window %+v, want 5", out)
	}
}

// TestCalibrationDuplicated: template 3 duplicated to two clusters (6
// member pods) at 80% of a 50% target → 5 template replicas.
func TestCalibrationDuplicated(t *testing.T) {
	pods, samples := readyPods("web", 6, "100m", 80)
	u, err := calc().ResourceUtilization(3, 50, corev1.ResourceCPU, "", samples, pods, 2, now)
	if err != nil || u.Replicas != 5 {
		t.Fatalf("got %+v, %v; want 5", u, err)
	}
}

func TestToleranceAndErrors(t *testing.T) {
	pods, samples := readyPods("web", 4, "100m", 52)
	u, err := calc().ResourceUtilization(4, 50, corev1.ResourceCPU, "", samples, pods, 1, now)
	if err != nil || u.Replicas != 4 {
		t.Fatalf("within tolerance: %+v, %v", u, err)
	}
	if _, err := calc().ResourceUtilization(4, 50, corev1.ResourceCPU, "", samples, nil, 1, now); err != ErrNoPods {
		t.Errorf("no pods: %v", err)
	}
	if _, err := calc().ResourceUtilization(4, 50, corev1.ResourceCPU, "", Samples{}, pods, 1, now); err != ErrNoMetrics {
		t.Errorf("no samples: %v", err)
	}
	pods[0].Spec.Containers[0].Resources.Requests = nil
	if _, err := calc().ResourceUtilization(4, 50, corev1.ResourceCPU, "", samples, pods, 1, now); err == nil {
		t.Error("a container without a request is not an error")
	}
}

// TestMissingAndUnreadyPods: a pod without a sample counts as 100% of its
// request on a scale-down (so it holds the count), a pending pod as 0 on a
// scale-up.
func TestMissingAndUnreadyPods(t *testing.T) {
	pods, samples := readyPods("web", 4, "100m", 10)
	delete(samples, "web-3")
	u, err := calc().ResourceUtilization(4, 50, corev1.ResourceCPU, "", samples, pods, 1, now)
	if err != nil {
		t.Fatal(err)
	}
	// 3 samples at 10% and one at 100%: ratio (30+100)/400/0.5 = 0.65 → 3.
	if u.Replicas != 3 || u.Utilization != 10 {
		t.Fatalf("missing pod on a scale-down: %+v, want 3 at 10%%", u)
	}
	pods, samples = readyPods("web", 4, "100m", 100)
	pods[3].Status.Phase = corev1.PodPending
	delete(samples, "web-3")
	u, err = calc().ResourceUtilization(4, 50, corev1.ResourceCPU, "", samples, pods, 1, now)
	if err != nil {
		t.Fatal(err)
	}
	// 3 ready at 200% of target plus one pending at 0: ratio 1.5 over 4 → 6.
	if u.Replicas != 6 {
		t.Fatalf("pending pod on a scale-up: %+v, want 6", u)
	}
}

func TestPlainAverageAndObject(t *testing.T) {
	pods, samples := readyPods("web", 4, "100m", 300)
	n, avg, err := calc().PlainAverage(4, 100, corev1.ResourceMemory, samples, pods, 1, now)
	if err != nil || n != 12 || avg != 300 {
		t.Fatalf("plain average: %d %d %v, want 12 at 300", n, avg, err)
	}
	if got := calc().ObjectValue(4, 2000, 1000, 4, 1); got != 8 {
		t.Errorf("object value: %d, want 8", got)
	}
	if got := calc().ObjectValue(0, 2500, 1000, 0, 1); got != 3 {
		t.Errorf("object value from zero: %d, want 3", got)
	}
	if got := calc().ObjectAverageValue(6000, 1000, 3, 1); got != 6 {
		t.Errorf("object average value: %d, want 6", got)
	}
	if got := ReadyRunning(pods); got != 4 {
		t.Errorf("ready running %d", got)
	}
}

// TestBehaviorRateLimits: one pod per minute up, a 60 s scale-down window
// and one pod per 30 s down.
func TestBehaviorRateLimits(t *testing.T) {
	behavior := &autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleUp: &autoscalingv2.HPAScalingRules{Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 60}}},
		ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](60),
			Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 30}}},
	}
	n := &Normalizer{DownscaleStabilization: 5 * time.Minute}
	key := "default/web"
	n.Seed(key, 2, now)
	b := Bounds{Min: 1, Max: 10}
	out := n.Normalize(key, 2, 6, b, behavior, now)
	if out.Replicas != 3 || !out.Limited || out.LimitedReason != ReasonScaleUpLimit {
		t.Fatalf("first scale-up %+v, want 3 ScaleUpLimit", out)
	}
	n.RecordScale(key, 2, 3, behavior, now)
	t1 := now.Add(20 * time.Second)
	if out = n.Normalize(key, 3, 6, b, behavior, t1); out.Replicas != 3 {
		t.Fatalf("within the period %+v, want 3", out)
	}
	t2 := now.Add(61 * time.Second)
	if out = n.Normalize(key, 3, 6, b, behavior, t2); out.Replicas != 4 {
		t.Fatalf("next period %+v, want 4", out)
	}
	n.RecordScale(key, 3, 4, behavior, t2)
	// The load goes: the 60 s down window holds 4 (recent proposals of 6).
	t3 := t2.Add(30 * time.Second)
	if out = n.Normalize(key, 4, 1, b, behavior, t3); out.Replicas != 4 || out.StabilizedReason != ReasonScaleDownStabilized {
		t.Fatalf("inside the down window %+v, want 4 ScaleDownStabilized", out)
	}
	// Past the window: one pod per 30 s.
	t4 := t3.Add(61 * time.Second)
	if out = n.Normalize(key, 4, 1, b, behavior, t4); out.Replicas != 3 || out.LimitedReason != ReasonScaleDownLimit {
		t.Fatalf("after the down window %+v, want 3 ScaleDownLimit", out)
	}
}

// TestDefaultBehaviorFilled: a behavior with only a scale-down window gets
// the webhook's scale-up rules (4 pods or 100% per 15 s).
func TestDefaultBehaviorFilled(t *testing.T) {
	n := &Normalizer{DownscaleStabilization: time.Minute}
	behavior := &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](0)}}
	out := n.Normalize("k", 10, 100, Bounds{Min: 1, Max: 50}, behavior, now)
	if out.Replicas != 20 || out.LimitedReason != ReasonScaleUpLimit {
		t.Fatalf("%+v, want 20 (100%% per 15 s)", out)
	}
}

// TestSelectPolicy: Max takes the largest change, Min the smallest,
// Disabled none, in both directions.
func TestSelectPolicy(t *testing.T) {
	policies := []autoscalingv2.HPAScalingPolicy{
		{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
		{Type: autoscalingv2.PercentScalingPolicy, Value: 50, PeriodSeconds: 15},
	}
	for _, tc := range []struct {
		policy   autoscalingv2.ScalingPolicySelect
		up, down int32
	}{
		{autoscalingv2.MaxChangePolicySelect, 15, 5},
		{autoscalingv2.MinChangePolicySelect, 14, 6},
		{autoscalingv2.DisabledPolicySelect, 10, 10},
	} {
		rules := &autoscalingv2.HPAScalingRules{SelectPolicy: ptr.To(tc.policy), Policies: policies}
		if got := scaleUpLimit(10, nil, nil, rules, now); got != tc.up {
			t.Errorf("%s up from 10: %d, want %d", tc.policy, got, tc.up)
		}
		if got := scaleDownLimit(10, nil, nil, rules, now); got != tc.down {
			t.Errorf("%s down from 10: %d, want %d", tc.policy, got, tc.down)
		}
	}
}

// TestHugeUsageScalesUp: a member reporting a usage near the int64 range
// made the sums wrap around to a negative usage, which scaled down to
// the minimum; the calculation saturates and proposes a scale-up.
func TestHugeUsageScalesUp(t *testing.T) {
	huge := int64(math.MaxInt64/2 + 1)
	pods, samples := readyPods("web", 4, "100m", 80)
	samples["web-0"] = Sample{Value: huge, Timestamp: samples["web-0"].Timestamp, Window: samples["web-0"].Window}
	samples["web-1"] = Sample{Value: huge, Timestamp: samples["web-1"].Timestamp, Window: samples["web-1"].Window}
	u, err := calc().ResourceUtilization(4, 50, corev1.ResourceCPU, "", samples, pods, 1, now)
	if err != nil {
		t.Fatal(err)
	}
	// Utilization saturates at the int32 maximum; the proposal is that
	// ratio to the 50 % target over the 4 pods (normalisation bounds it).
	if want := int32(math.Ceil(math.MaxInt32 / 50.0 * 4)); u.Replicas != want || u.Utilization != math.MaxInt32 {
		t.Errorf("utilization proposal %+v, want %d replicas at the int32 maximum utilization", u, want)
	}
	n, avg, err := calc().PlainAverage(4, 100, corev1.ResourceCPU, samples, pods, 1, now)
	if err != nil || n != math.MaxInt32 || avg <= 0 {
		t.Errorf("average proposal %d (average %d), %v; want the int32 maximum", n, avg, err)
	}
	if n := calc().ObjectValue(4, math.MaxInt64, 1, 4, 1); n != math.MaxInt32 {
		t.Errorf("object value proposal %d, want the int32 maximum", n)
	}
	if n := calc().ObjectValue(0, math.MaxInt64, 1, 4, 1); n != math.MaxInt32 {
		t.Errorf("object value proposal from zero %d, want the int32 maximum", n)
	}
	if n := calc().ObjectAverageValue(math.MaxInt64, 1, 4, 1); n != math.MaxInt32 {
		t.Errorf("object average value proposal %d, want the int32 maximum", n)
	}
	out := (&Normalizer{DownscaleStabilization: 5 * time.Minute}).Normalize("default/web", 4, u.Replicas, Bounds{Min: 1, Max: 10}, nil, now)
	if out.Replicas != 8 {
		t.Errorf("normalised %+v, want the scale-up limit 8", out)
	}
}

// TestNegativeSamplesAreMissing: a negative sample is no measure; the pod
// counts as one without a sample (conservatively), and the others' high
// usage still scales up.
func TestNegativeSamplesAreMissing(t *testing.T) {
	pods, samples := readyPods("web", 4, "100m", 80)
	samples["web-0"] = Sample{Value: -1 << 60, Timestamp: samples["web-0"].Timestamp, Window: samples["web-0"].Window}
	u, err := calc().ResourceUtilization(4, 50, corev1.ResourceCPU, "", samples, pods, 1, now)
	if err != nil {
		t.Fatal(err)
	}
	// 3 pods at 80 of 100 and the fourth counted at 0 (scale-up): 60 % of
	// a 50 % target → ceil(1.2 × 4) = 5.
	if u.Replicas != 5 || u.Utilization != 80 {
		t.Errorf("proposal %+v, want 5 replicas from the three measured pods at 80 %%", u)
	}
	n, avg, err := calc().PlainAverage(4, 50, corev1.ResourceCPU, samples, pods, 1, now)
	if err != nil || n != 5 || avg != 80 {
		t.Errorf("average proposal %d (average %d), %v; want 5 at 80m", n, avg, err)
	}
}

func TestSaturatingArithmetic(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want int64
	}{
		{"1", 1000}, {"-2", -2000}, {"1e30", math.MaxInt64}, {"-1e30", math.MinInt64},
		{"9223372036854775807", math.MaxInt64}, {"9223372036854775n", 9223372037}, {"100Ei", math.MaxInt64},
	} {
		if got := MilliValue(resource.MustParse(tc.q)); got != tc.want {
			t.Errorf("MilliValue(%s) = %d, want %d", tc.q, got, tc.want)
		}
	}
	if AddSaturating(math.MaxInt64, 1) != math.MaxInt64 || AddSaturating(math.MinInt64, -1) != math.MinInt64 || AddSaturating(-3, 5) != 2 {
		t.Error("AddSaturating does not saturate")
	}
	if percentOf(math.MaxInt64, 1) != math.MaxInt32 || percentOf(80, 100) != 80 || percentOf(1, 3) != 33 || percentOf(math.MaxInt64, math.MaxInt64) != 100 {
		t.Error("percentOf")
	}
	if ceilReplicas(math.NaN()) != 0 || ceilReplicas(math.Inf(1)) != math.MaxInt32 || ceilReplicas(-4) != 0 || ceilReplicas(6.2) != 7 {
		t.Error("ceilReplicas")
	}
}
