package federatedhpa

import (
	"context"
	"math"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	metricsapi "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"

	"github.com/propel-mc/propel/internal/shared/membercluster"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

// memberWithUsage is a member whose metrics server reports the given cpu
// usage for each pod of app=web in namespace default.
func memberWithUsage(t *testing.T, cluster string, usage map[string]string) *memberState {
	t.Helper()
	var objs []metricsapi.PodMetrics
	st := &memberState{cluster: cluster, member: &membercluster.Member{Name: cluster}, rawSel: "app=web", selector: labels.SelectorFromSet(labels.Set{"app": "web"})}
	for pod, cpu := range usage {
		objs = append(objs, metricsapi.PodMetrics{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: pod, Labels: map[string]string{"app": "web"}},
			Containers: []metricsapi.ContainerMetrics{{Name: "main", Usage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}},
		})
		st.pods = append(st.pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: pod, Labels: map[string]string{"app": "web"}}})
	}
	st.metrics = &memberMetrics{pods: podMetricsClient(objs...).MetricsV1beta1()}
	return st
}

// podMetricsClient is a fake metrics clientset answering a PodMetrics
// list with the objs its label selector picks (the fake tracker files
// PodMetrics under another resource than the one the client lists).
func podMetricsClient(objs ...metricsapi.PodMetrics) *metricsfake.Clientset {
	c := metricsfake.NewSimpleClientset()
	c.PrependReactor("list", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		restrictions := action.(clienttesting.ListAction).GetListRestrictions()
		list := &metricsapi.PodMetricsList{}
		for _, pm := range objs {
			if pm.Namespace == action.GetNamespace() && restrictions.Labels.Matches(labels.Set(pm.Labels)) {
				list.Items = append(list.Items, pm)
			}
		}
		return true, list, nil
	})
	return c
}

// TestMemberMetricsOutOfRange: a member's usage beyond int64 milli-units
// is capped (Quantity.MilliValue wrapped it around), a negative one is
// left out, and one event for the whole reconcile names the members,
// however many samples and metrics were affected.
func TestMemberMetricsOutOfRange(t *testing.T) {
	agg := &aggregate{members: []*memberState{
		memberWithUsage(t, "member1", map[string]string{"web-0": "1e30", "web-1": "80m"}),
		memberWithUsage(t, "member2", map[string]string{"web-2": "-5", "web-3": "-1m", "web-4": "40m"}),
	}}
	// Two metrics of one reconcile read the same samples.
	for range 2 {
		samples, err := resourceSamples(context.Background(), agg, "default", corev1.ResourceCPU, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(samples) != 3 || samples["web-0"].Value != math.MaxInt64 || samples["web-1"].Value != 80 || samples["web-4"].Value != 40 {
			t.Fatalf("samples %+v, want web-0 capped, web-1 80m, web-4 40m and no negative sample", samples)
		}
	}
	events := record.NewFakeRecorder(10)
	r := &Reconciler{recorder: events}
	r.reportSamples(&autoscalingv1alpha1.FederatedHPA{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}, &agg.report)
	close(events.Events)
	var got []string
	for e := range events.Events {
		got = append(got, e)
	}
	if len(got) != 1 {
		t.Fatalf("events %q, want one for the reconcile", got)
	}
	want := "Warning " + EventReasonInvalidMemberMetrics + " ignored negative metric values from cluster member2 (4); capped metric values too large to count from cluster member1 (2)"
	if got[0] != want {
		t.Errorf("event %q, want %q", got[0], want)
	}
}

func TestMemberMetricsReportIsBounded(t *testing.T) {
	report := &sampleReport{}
	if report.message() != "" {
		t.Fatal("an empty report has a message")
	}
	neg := resource.MustParse("-1")
	for i := 0; i < 10000; i++ {
		report.milliValue(strings.Repeat("c", 200)+string(rune('a'+i%26))+strings.Repeat("x", i%50), neg)
	}
	msg := report.message()
	if len(msg) > 1024 || !strings.Contains(msg, "more clusters") {
		t.Errorf("message of %d bytes: %.200q", len(msg), msg)
	}
}
