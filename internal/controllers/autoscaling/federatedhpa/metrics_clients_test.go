package federatedhpa

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	custommetricsapi "k8s.io/metrics/pkg/apis/custom_metrics/v1beta2"
	metricsapi "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	customfake "k8s.io/metrics/pkg/client/custom_metrics/fake"

	"github.com/propel-mc/propel/internal/shared/membercluster"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

// servedAPI is a member's answer to which custom metrics version it
// serves.
type servedAPI struct{ err error }

func (s servedAPI) PreferredVersion() (schema.GroupVersion, error) {
	return custommetricsapi.SchemeGroupVersion, s.err
}
func (s servedAPI) Invalidate() {}

var testStart = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// readyPod is a pod of app=web running and ready for an hour.
func readyPod(name string) *corev1.Pod {
	started := metav1.NewTime(testStart.Add(-time.Hour))
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "web"}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &started,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: started}}},
	}
}

// member is a member with pods (app=web, namespace default), their cpu
// usage in its PodMetrics, and a custom metrics API answering per
// resource with values (nil: the member serves no custom metrics API).
func member(name string, cpu map[string]string, custom map[string][]custommetricsapi.MetricValue) *memberState {
	st := &memberState{cluster: name, member: &membercluster.Member{Name: name}, rawSel: "app=web", selector: labels.SelectorFromSet(labels.Set{"app": "web"})}
	var pms []metricsapi.PodMetrics
	for pod, usage := range cpu {
		st.pods = append(st.pods, readyPod(pod))
		pms = append(pms, metricsapi.PodMetrics{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: pod, Labels: map[string]string{"app": "web"}},
			Timestamp:  metav1.NewTime(testStart), Window: metav1.Duration{Duration: 30 * time.Second},
			Containers: []metricsapi.ContainerMetrics{{Name: "main", Usage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(usage)}}},
		})
	}
	cm := &customfake.FakeCustomMetricsClient{}
	for res, values := range custom {
		cm.AddReactor("get", res, func(action clienttesting.Action) (bool, runtime.Object, error) {
			get := action.(customfake.GetForAction)
			if get.GetNamespace() != "default" {
				return true, nil, errors.New("asked for another namespace: " + get.GetNamespace())
			}
			if res == "pods" && (get.GetLabelSelector() == nil || get.GetLabelSelector().String() != "app=web") {
				return true, nil, errors.New("pods metric asked without the target's selector")
			}
			return true, &custommetricsapi.MetricValueList{Items: values}, nil
		})
	}
	api := servedAPI{}
	if custom == nil {
		api.err = errors.New("no custom metrics API (custom.metrics.k8s.io) registered")
	}
	st.metrics = &memberMetrics{pods: podMetricsClient(pms...).MetricsV1beta1(), customAPI: api, custom: cm}
	return st
}

func metricValue(object, value string) custommetricsapi.MetricValue {
	return custommetricsapi.MetricValue{DescribedObject: corev1.ObjectReference{Name: object}, Timestamp: metav1.NewTime(testStart), Value: resource.MustParse(value)}
}

func decisionReconciler() *Reconciler {
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("Service"), meta.RESTScopeNamespace)
	r := New(Deps{Mapper: mapper, Recorder: record.NewFakeRecorder(100)}, Options{Tolerance: 0.1})
	r.now = func() time.Time { return testStart }
	return r
}

// TestMetricDecisionsFromMemberMetricsClients: the replica count each kind
// of metric proposes from what two members' metrics clients answer.
func TestMetricDecisionsFromMemberMetricsClients(t *testing.T) {
	fhpa := &autoscalingv1alpha1.FederatedHPA{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}
	requests := map[string][]custommetricsapi.MetricValue{
		"pods":     {metricValue("web-0", "300m"), metricValue("web-1", "300m")},
		"services": {metricValue("front", "10")},
	}
	agg := &aggregate{selector: "app=web", spec: 2, status: 2, members: []*memberState{
		member("member1", map[string]string{"web-0": "200m"}, requests),
		member("member2", map[string]string{"web-1": "200m"}, map[string][]custommetricsapi.MetricValue{
			"pods": {}, "services": {metricValue("front", "10")},
		}),
	}}
	for _, st := range agg.members {
		agg.pods = append(agg.pods, st.pods...)
	}
	hundredMilli := resource.MustParse("100m")
	five := resource.MustParse("5")
	cases := []struct {
		name string
		spec autoscalingv2.MetricSpec
		want int32
	}{
		{"resource average value: 200m a pod for 100m", autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &hundredMilli}}}, 4},
		{"pods metric: 300m a pod for 100m", autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType,
			Pods: &autoscalingv2.PodsMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: "qps"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &hundredMilli}}}, 6},
		{"object metric: 10 in each member for 5", autoscalingv2.MetricSpec{Type: autoscalingv2.ObjectMetricSourceType,
			Object: &autoscalingv2.ObjectMetricSource{DescribedObject: autoscalingv2.CrossVersionObjectReference{APIVersion: "v1", Kind: "Service", Name: "front"},
				Metric: autoscalingv2.MetricIdentifier{Name: "rps"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: &five}}}, 8},
	}
	for _, tc := range cases {
		r := decisionReconciler()
		n, _, _, _, err := r.metricProposal(context.Background(), fhpa, tc.spec, agg, 2, 1, testStart)
		if err != nil || n != tc.want {
			t.Errorf("%s: proposes %d (%v), want %d", tc.name, n, err, tc.want)
		}
	}
}

// TestCustomMetricsOnlyFromServingMembers: a member without the custom
// metrics API is left out; when no member serves it the error says why.
func TestCustomMetricsOnlyFromServingMembers(t *testing.T) {
	fhpa := &autoscalingv1alpha1.FederatedHPA{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}
	hundredMilli := resource.MustParse("100m")
	spec := autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType,
		Pods: &autoscalingv2.PodsMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: "qps"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &hundredMilli}}}
	serving := member("member1", map[string]string{"web-0": "1"}, map[string][]custommetricsapi.MetricValue{"pods": {metricValue("web-0", "100m"), metricValue("web-1", "500m")}})
	silent := member("member2", map[string]string{"web-1": "1"}, nil)
	agg := &aggregate{selector: "app=web", members: []*memberState{serving, silent}, pods: append(append([]*corev1.Pod{}, serving.pods...), silent.pods...)}
	n, _, _, _, err := decisionReconciler().metricProposal(context.Background(), fhpa, spec, agg, 2, 1, testStart)
	if err != nil || n != 6 {
		t.Errorf("proposes %d (%v), want 6 from member1's values alone", n, err)
	}
	agg = &aggregate{selector: "app=web", members: []*memberState{silent}, pods: silent.pods}
	_, _, _, reason, err := decisionReconciler().metricProposal(context.Background(), fhpa, spec, agg, 1, 1, testStart)
	if err == nil || reason != "FailedGetPodsMetric" || !strings.Contains(err.Error(), "no target cluster serves the custom metrics API: cluster member2") {
		t.Errorf("no serving member: reason %q, error %v", reason, err)
	}
}

// TestMetricsAnswersAreBounded: a member's metrics answer longer than the
// limit fails to read instead of being decoded whole.
func TestMetricsAnswersAreBounded(t *testing.T) {
	answer := func(n int) http.RoundTripper {
		return roundTripperFunc(func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader(strings.Repeat("x", n)))}, nil
		})
	}
	req := httptest.NewRequest(http.MethodGet, "https://member1/apis/metrics.k8s.io/v1beta1/pods", nil)
	for _, tc := range []struct {
		size int
		fail bool
	}{{0, false}, {1000, false}, {1001, true}, {1 << 20, true}} {
		resp, err := limitResponses(1000)(answer(tc.size)).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		if (err != nil) != tc.fail || (!tc.fail && len(body) != tc.size) || len(body) > 1000 {
			t.Errorf("answer of %d bytes: read %d bytes, error %v", tc.size, len(body), err)
		}
	}
}
