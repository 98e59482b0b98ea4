package scheduler

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/pkg/apis"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// TestPriorityBurstIntegration queues a burst of 50 low-priority bindings
// and then 5 high-priority ones before the scheduler starts, on a real API
// server, and reads the order in which the scheduler wrote its decisions.
// With PriorityBasedScheduling the high-priority bindings are the first
// scheduled. The same burst for a scheduler with the gate off (another
// schedulerName) is the control: its queue serves the informer's initial
// list, whose order client-go does not define (a streaming initial list is
// replayed from a map), so the control does not assume arrival order; it
// asserts only that the five high ones are not all among the first seven,
// which a queue ignoring priority does by chance once in about 166,000
// runs (C(7,5)/C(55,5)), and which the gate makes certain.
func TestPriorityBurstIntegration(t *testing.T) {
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	capacity := map[string]int64{"big": 1000}
	const low, high = 50, 5
	for _, prefix := range []string{"prio", "noprio"} {
		createCapacityCluster(ctx, t, env.Client, prefix+"-big", 1000)
		var objs []client.Object
		for i := range low {
			objs = append(objs, burstBinding(prefix, i, capacity))
		}
		if err := harness.CreateConcurrently(ctx, env.Client, 10, objs); err != nil {
			t.Fatal(err)
		}
		for i := range high {
			b := burstBinding(prefix, 900+i, capacity)
			b.Spec.SchedulePriority = &workv1alpha2.SchedulePriority{Priority: 1000}
			if err := env.Client.Create(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
	}

	var writes harness.WriteCounter
	mgr, err := ctrl.NewManager(writes.Count(env.ControllerManagerConfig(), "karmada"), ctrl.Options{
		Scheme: apis.Scheme, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Two workers each: the queue, not the worker count, must decide.
	for _, o := range []Options{{SchedulerName: "prio", Workers: 2}, {SchedulerName: "noprio", Workers: 2, IgnorePriority: true}} {
		s, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetupWithManager(mgr); err != nil {
			t.Fatal(err)
		}
	}
	go func() { _ = mgr.Start(ctx) }()
	for _, prefix := range []string{"prio", "noprio"} {
		harness.Eventually(t, fmt.Sprintf("%d %s bindings scheduled", low+high, prefix), func(ctx context.Context) (bool, error) {
			list := &workv1alpha2.ResourceBindingList{}
			if err := env.Client.List(ctx, list, client.InNamespace("default"), client.MatchingLabels{"burst": prefix}); err != nil {
				return false, err
			}
			done := 0
			for _, rb := range list.Items {
				if meta.IsStatusConditionTrue(rb.Status.Conditions, workv1alpha2.Scheduled) {
					done++
				}
			}
			return done == low+high, nil
		}, harness.Timeout(2*time.Minute))
	}

	// lastHigh is the largest rank of a high-priority binding among the
	// scheduler's first writes to each binding of the burst.
	lastHigh := func(prefix string) int {
		var order []string
		for _, w := range writes.Since(0) {
			name := strings.TrimSuffix(w.Path, "/status")
			name = name[strings.LastIndex(name, "/")+1:]
			if strings.HasPrefix(name, prefix+"-") && !slices.Contains(order, name) {
				order = append(order, name)
			}
		}
		if len(order) != low+high {
			t.Fatalf("%s: the scheduler wrote %d of the %d bindings: %v", prefix, len(order), low+high, order)
		}
		last := -1
		for i := range high {
			last = max(last, slices.Index(order, fmt.Sprintf("%s-%d-deployment", prefix, 900+i)))
		}
		return last
	}
	withGate, withoutGate := lastHigh("prio"), lastHigh("noprio")
	t.Logf("last high-priority binding scheduled at position %d of %d with PriorityBasedScheduling, %d without", withGate, low+high, withoutGate)
	// Two workers may each hold one low binding taken before the high ones
	// were ranked, hence high+2.
	if withGate >= high+2 {
		t.Errorf("with PriorityBasedScheduling the last high-priority binding was scheduled at position %d of %d, want among the first %d", withGate, low+high, high+2)
	}
	if withoutGate < high+2 {
		t.Errorf("without the gate every high-priority binding was scheduled among the first %d (last at %d): the burst does not exercise the queue", high+2, withoutGate)
	}
}
