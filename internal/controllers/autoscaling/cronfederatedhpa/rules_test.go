package cronfederatedhpa

import (
	"context"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/pkg/apis"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

// simulation runs the reconciler on a fake client and a fake clock that
// jumps to each requested requeue time, as the work queue would.
type simulation struct {
	t        *testing.T
	r        *Reconciler
	c        client.Client
	events   *record.FakeRecorder
	clock    time.Time
	key      types.NamespacedName
	requeue  time.Duration
	maxSteps int
}

func newSimulation(t *testing.T, cron *autoscalingv1alpha1.CronFederatedHPA, fhpa *autoscalingv1alpha1.FederatedHPA) *simulation {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(apis.Scheme).WithObjects(cron, fhpa).
		WithStatusSubresource(&autoscalingv1alpha1.CronFederatedHPA{}).Build()
	s := &simulation{t: t, c: c, events: record.NewFakeRecorder(100), maxSteps: 1000,
		clock: time.Date(2026, 11, 24, 12, 0, 30, 0, time.UTC), key: client.ObjectKeyFromObject(cron)}
	s.r = New(Deps{Client: c, Recorder: s.events})
	s.r.now = func() time.Time { return s.clock }
	return s
}

// reconcile runs one reconcile at the current clock.
func (s *simulation) reconcile() {
	s.t.Helper()
	res, err := s.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: s.key})
	if err != nil {
		s.t.Fatalf("reconcile at %v: %v", s.clock, err)
	}
	s.requeue = res.RequeueAfter
}

// runFor reconciles at every requeue time until d has passed.
func (s *simulation) runFor(d time.Duration) {
	s.t.Helper()
	end := s.clock.Add(d)
	s.reconcile()
	for i := 0; s.requeue > 0 && s.clock.Add(s.requeue).Before(end); i++ {
		if i == s.maxSteps {
			s.t.Fatalf("more than %d reconciles in %v", s.maxSteps, d)
		}
		s.clock = s.clock.Add(s.requeue)
		s.reconcile()
	}
	s.clock = end
}

func (s *simulation) cron() *autoscalingv1alpha1.CronFederatedHPA {
	s.t.Helper()
	got := &autoscalingv1alpha1.CronFederatedHPA{}
	if err := s.c.Get(context.Background(), s.key, got); err != nil {
		s.t.Fatal(err)
	}
	return got
}

func (s *simulation) drainEvents() []string {
	var out []string
	for {
		select {
		case e := <-s.events.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func everyMinuteRule(name string, maxReplicas int32) autoscalingv1alpha1.CronFederatedHPARule {
	return autoscalingv1alpha1.CronFederatedHPARule{Name: name, Schedule: "* * * * *", TimeZone: ptr.To("UTC"), TargetMaxReplicas: ptr.To(maxReplicas)}
}

func cronOnFederatedHPA(rules ...autoscalingv1alpha1.CronFederatedHPARule) (*autoscalingv1alpha1.CronFederatedHPA, *autoscalingv1alpha1.FederatedHPA) {
	fhpa := &autoscalingv1alpha1.FederatedHPA{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: autoscalingv1alpha1.FederatedHPASpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:    ptr.To[int32](1), MaxReplicas: 5,
		},
	}
	cron := &autoscalingv1alpha1.CronFederatedHPA{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-cron", Generation: 1},
		Spec: autoscalingv1alpha1.CronFederatedHPASpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "autoscaling.karmada.io/v1alpha1", Kind: "FederatedHPA", Name: "web"},
			Rules:          rules,
		},
	}
	return cron, fhpa
}

func fires(h autoscalingv1alpha1.ExecutionHistory) int {
	return len(h.SuccessfulExecutions) + len(h.FailedExecutions)
}

// TestDuplicateRuleNamesRefuseTheObject: two rules named alike were
// re-armed at every reconcile and never fired while the status promised
// a next time. The object is refused as Karmada's webhook would refuse
// it: an event names the duplicated rule, no rule is scheduled (no next
// execution time, no fire, no requeue); once the names are fixed, the
// rules run.
func TestDuplicateRuleNamesRefuseTheObject(t *testing.T) {
	cron, fhpa := cronOnFederatedHPA(everyMinuteRule("peak", 6), everyMinuteRule("valid", 7), everyMinuteRule("peak", 8))
	s := newSimulation(t, cron, fhpa)
	s.runFor(5 * time.Minute)

	got := s.cron()
	if len(got.Status.ExecutionHistories) != 2 {
		t.Fatalf("histories %+v, want one per rule name (peak, valid)", got.Status.ExecutionHistories)
	}
	for _, h := range got.Status.ExecutionHistories {
		if h.NextExecutionTime != nil {
			t.Errorf("rule %s of a refused object shows a next execution time %v", h.RuleName, h.NextExecutionTime)
		}
		if n := fires(h); n != 0 {
			t.Errorf("rule %s of a refused object fired %d times", h.RuleName, n)
		}
	}
	if s.requeue != 0 {
		t.Errorf("a refused object requeues after %v; only a spec change can fix it", s.requeue)
	}
	events := s.drainEvents()
	refused := 0
	for _, e := range events {
		if strings.HasPrefix(e, "Warning "+EventReasonValidateRulesFailed+" ") {
			refused++
			if !strings.Contains(e, `"peak"`) || strings.Contains(e, `"valid"`) {
				t.Errorf("event %q does not name the duplicated rule (only)", e)
			}
		}
	}
	if refused != 1 {
		t.Errorf("events %q, want one %s for the one reconcile of the refused generation", events, EventReasonValidateRulesFailed)
	}

	// The user renames one rule: every rule runs each minute.
	got.Spec.Rules[2].Name = "peak-late"
	got.Generation++
	if err := s.c.Update(context.Background(), got); err != nil {
		t.Fatal(err)
	}
	s.runFor(5 * time.Minute)
	got = s.cron()
	if len(got.Status.ExecutionHistories) != 3 {
		t.Fatalf("histories %+v, want three rules", got.Status.ExecutionHistories)
	}
	for _, h := range got.Status.ExecutionHistories {
		if h.NextExecutionTime == nil || len(h.SuccessfulExecutions) == 0 {
			t.Errorf("rule %s after the fix: next %v, %d successful executions; want it scheduled and fired", h.RuleName, h.NextExecutionTime, len(h.SuccessfulExecutions))
		}
	}
}

func TestDuplicateRuleNamesMessageIsBounded(t *testing.T) {
	var rules []autoscalingv1alpha1.CronFederatedHPARule
	for i := 0; i < 500; i++ {
		name := strings.Repeat(string(rune('a'+i%26)), 200) + string(rune('a'+i/26))
		rules = append(rules, everyMinuteRule(name, 2), everyMinuteRule(name, 3))
	}
	err := validateRules(rules)
	if err == nil {
		t.Fatal("500 duplicated names accepted")
	}
	if len(err.Error()) > 1024 {
		t.Errorf("message of %d bytes for 500 duplicated names", len(err.Error()))
	}
	if validateRules(rules[:1]) != nil || validateRules(nil) != nil {
		t.Error("rules with unique names refused")
	}
}
