package e2e

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/controllers/autoscaling/federatedhpa"
	"github.com/propel-mc/propel/internal/shared/names"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// TestFederatedHPA applies config/samples/federatedhpa: Deployment web (2 replicas of 100m cpu) is divided
// between member1 and member2, whose metrics-servers scrape kwok's
// simulated usage of 80m per pod. The FederatedHPA (cpu 50%, 2..6, scale
// up at most 2 pods per 15 s, scale-down window 20 s) scales the template
// up in steps of at most 2 to 6; when the members' pods drop to 10m it
// scales back to 2, not before the window has passed.
func TestFederatedHPA(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	logs := harness.LogsIn(env.LogDir)
	ns := harness.UniqueName("fhpa")
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	})
	applySample(t, "federatedhpa/web.yaml", ns)
	deploy := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}
	fhpa := &autoscalingv1alpha1.FederatedHPA{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}

	templateReplicas := func(ctx context.Context) (int32, error) {
		got := &appsv1.Deployment{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(deploy), got); err != nil {
			return 0, err
		}
		return ptr.Deref(got.Spec.Replicas, 0), nil
	}
	harness.Eventually(t, "the FederatedHPA scales web up to its maximum, 6", func(ctx context.Context) (bool, error) {
		n, err := templateReplicas(ctx)
		return n == 6, err
	}, harness.Timeout(4*time.Minute), logs)

	// Each rescale stayed within the scale-up policy (2 pods per 15 s).
	// The events are written asynchronously, after the rescale.
	var sizes []int32
	harness.Eventually(t, "the event of the rescale to 6", func(context.Context) (bool, error) {
		sizes = rescales(t, ns)
		if len(sizes) >= 2 && sizes[len(sizes)-1] == 6 {
			return true, nil
		}
		return false, fmt.Errorf("rescale events %v, want steps up to 6", sizes)
	}, logs)
	previous := int32(2)
	for _, s := range sizes {
		if s-previous > 2 {
			t.Errorf("rescale from %d to %d exceeds the scale-up policy of 2 pods (events %v)", previous, s, sizes)
		}
		previous = s
	}
	got := &autoscalingv1alpha1.FederatedHPA{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(fhpa), got); err != nil {
		t.Fatal(err)
	}
	if len(got.Status.CurrentMetrics) != 1 || got.Status.CurrentMetrics[0].Resource == nil ||
		ptr.Deref(got.Status.CurrentMetrics[0].Resource.Current.AverageUtilization, 0) < 60 {
		t.Errorf("status.currentMetrics %+v, want cpu utilization around 80%%", got.Status.CurrentMetrics)
	}

	// The load drops: every member pod now uses 10m.
	harness.Eventually(t, "6 pods run in the members", func(ctx context.Context) (bool, error) {
		return len(memberPods(ctx, t, ns)) == 6, nil
	}, harness.Timeout(2*time.Minute), logs)
	for member, pods := range memberPodsByCluster(ctx, t, ns) {
		c, err := env.MemberClient(member)
		if err != nil {
			t.Fatal(err)
		}
		for _, pod := range pods {
			patch := []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:"10m"}}}`, localenv.UsageCPUAnnotation))
			if err := c.Patch(ctx, pod, client.RawPatch(types.MergePatchType, patch)); err != nil {
				t.Fatal(err)
			}
		}
	}
	harness.Eventually(t, "the FederatedHPA sees the low utilization", func(ctx context.Context) (bool, error) {
		got := &autoscalingv1alpha1.FederatedHPA{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(fhpa), got); err != nil {
			return false, err
		}
		m := got.Status.CurrentMetrics
		if len(m) == 1 && m[0].Resource != nil && ptr.Deref(m[0].Resource.Current.AverageUtilization, 100) <= 20 {
			return true, nil
		}
		return false, nil
	}, harness.Timeout(2*time.Minute), logs)
	harness.Eventually(t, "the FederatedHPA scales web back to its minimum, 2", func(ctx context.Context) (bool, error) {
		n, err := templateReplicas(ctx)
		return n == 2, err
	}, harness.Timeout(3*time.Minute), logs)
	// The scale-down waited for the 20 s window: the recommendation of 6
	// made at the last scale-up holds the count until it is 20 s old.
	// Events are written asynchronously, after the rescale they report.
	var (
		events       []rescale
		upAt, downAt time.Time
	)
	harness.Eventually(t, "the events of the rescales to 6 and back to 2", func(context.Context) (bool, error) {
		events = rescaleEvents(t, ns)
		upAt, downAt = time.Time{}, time.Time{}
		for _, e := range events {
			if e.size == 6 && upAt.IsZero() {
				upAt = e.at
			}
			if e.size == 2 {
				downAt = e.at
			}
		}
		return !upAt.IsZero() && !downAt.IsZero(), nil
	}, logs)
	for _, e := range events {
		t.Logf("rescaled to %d at %s", e.size, e.at.Format(time.TimeOnly))
	}
	// Event times have whole seconds: allow one second of rounding.
	if downAt.Sub(upAt) < 19*time.Second {
		t.Errorf("scaled down %s after the last scale-up, before the 20 s stabilisation window", downAt.Sub(upAt))
	}
}

type rescale struct {
	size int32
	at   time.Time
}

var newSize = regexp.MustCompile(`^New size: (\d+);`)

// rescaleEvents lists the SuccessfulRescale events of the namespace's
// FederatedHPA, oldest first.
func rescaleEvents(t *testing.T, ns string) []rescale {
	t.Helper()
	events := &corev1.EventList{}
	if err := env.Client.List(context.Background(), events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var out []rescale
	for _, e := range events.Items {
		if e.Reason != federatedhpa.EventReasonSuccessfulRescale || e.Source.Component != names.FederatedHPAControllerName {
			continue
		}
		m := newSize.FindStringSubmatch(e.Message)
		if m == nil {
			t.Fatalf("rescale event message %q", e.Message)
		}
		n, _ := strconv.Atoi(m[1])
		for i := int32(0); i < e.Count; i++ {
			out = append(out, rescale{size: int32(n), at: e.FirstTimestamp.Time})
		}
	}
	slices.SortStableFunc(out, func(a, b rescale) int { return a.at.Compare(b.at) })
	return out
}

func rescales(t *testing.T, ns string) []int32 {
	var out []int32
	for _, e := range rescaleEvents(t, ns) {
		out = append(out, e.size)
	}
	return out
}

// memberPodsByCluster lists the pods of web in member1 and member2.
func memberPodsByCluster(ctx context.Context, t *testing.T, ns string) map[string][]*corev1.Pod {
	t.Helper()
	out := map[string][]*corev1.Pod{}
	for _, member := range []string{"member1", "member2"} {
		c, err := env.MemberClient(member)
		if err != nil {
			t.Fatal(err)
		}
		list := &corev1.PodList{}
		if err := c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{"app": "web"}); err != nil {
			t.Fatal(err)
		}
		for i := range list.Items {
			if list.Items[i].DeletionTimestamp == nil {
				out[member] = append(out[member], &list.Items[i])
			}
		}
	}
	return out
}

func memberPods(ctx context.Context, t *testing.T, ns string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, pods := range memberPodsByCluster(ctx, t, ns) {
		out = append(out, pods...)
	}
	return out
}
