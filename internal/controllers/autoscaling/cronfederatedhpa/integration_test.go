package cronfederatedhpa_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/propel-mc/propel/internal/app/controllermanager/recorder"
	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/controllers/autoscaling/cronfederatedhpa"
	"github.com/propel-mc/propel/internal/shared/names"
	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// TestCronFederatedHPA runs the controller on a real control plane with
// two CronFederatedHPAs whose rules fire every minute: one scales a
// Deployment template through its scale subresource, the other sets the
// bounds of a FederatedHPA; both record the execution. A third, suspended,
// has no next execution time. The wait is for the next minute boundary
// (real time, no fake clock).
func TestCronFederatedHPA(t *testing.T) {
	ctrl.SetLogger(logr.Discard())
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := env.Client
	web := harness.Deployment("default", "web", nil)
	web.Spec.Replicas = ptr.To[int32](1)
	fhpa := &autoscalingv1alpha1.FederatedHPA{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-fhpa"},
		Spec: autoscalingv1alpha1.FederatedHPASpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "other"},
			MinReplicas:    ptr.To[int32](1), MaxReplicas: 5,
		},
	}
	everyMinute := func(name string, target autoscalingv2.CrossVersionObjectReference, rule autoscalingv1alpha1.CronFederatedHPARule) *autoscalingv1alpha1.CronFederatedHPA {
		rule.Name, rule.Schedule, rule.TimeZone = "every-minute", "* * * * *", ptr.To("Europe/Paris")
		return &autoscalingv1alpha1.CronFederatedHPA{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
			Spec:       autoscalingv1alpha1.CronFederatedHPASpec{ScaleTargetRef: target, Rules: []autoscalingv1alpha1.CronFederatedHPARule{rule}},
		}
	}
	toWeb := everyMinute("to-web", autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
		autoscalingv1alpha1.CronFederatedHPARule{TargetReplicas: ptr.To[int32](3)})
	toFHPA := everyMinute("to-fhpa", autoscalingv2.CrossVersionObjectReference{APIVersion: "autoscaling.karmada.io/v1alpha1", Kind: "FederatedHPA", Name: "web-fhpa"},
		autoscalingv1alpha1.CronFederatedHPARule{TargetMinReplicas: ptr.To[int32](2), TargetMaxReplicas: ptr.To[int32](8)})
	asleep := everyMinute("asleep", autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
		autoscalingv1alpha1.CronFederatedHPARule{TargetReplicas: ptr.To[int32](9), Suspend: ptr.To(true)})
	for _, o := range []client.Object{web, fhpa, toWeb, toFHPA, asleep} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := harness.RunManager(ctx, env.ControllerManagerConfig(), func(mgr manager.Manager) error {
		return cronfederatedhpa.New(cronfederatedhpa.Deps{
			Client:   mgr.GetClient(),
			Recorder: recorder.For(mgr, names.CronFederatedHPAControllerName),
		}).SetupWithManager(mgr)
	}); err != nil {
		t.Fatal(err)
	}
	history := func(ctx context.Context, name string) (autoscalingv1alpha1.ExecutionHistory, error) {
		got := &autoscalingv1alpha1.CronFederatedHPA{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, got); err != nil || len(got.Status.ExecutionHistories) == 0 {
			return autoscalingv1alpha1.ExecutionHistory{}, err
		}
		return got.Status.ExecutionHistories[0], nil
	}
	var next time.Time
	harness.Eventually(t, "the rule's next execution time is the next minute", func(ctx context.Context) (bool, error) {
		h, err := history(ctx, "to-web")
		if err != nil || h.NextExecutionTime == nil {
			return false, err
		}
		next = h.NextExecutionTime.Time
		return true, nil
	})
	if next.Second() != 0 || next.Before(time.Now().Add(-time.Minute)) || next.After(time.Now().Add(time.Minute)) {
		t.Fatalf("nextExecutionTime %v is not the next minute", next)
	}
	harness.Eventually(t, "web is scaled to 3 at the scheduled minute", func(ctx context.Context) (bool, error) {
		d := &appsv1.Deployment{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(web), d); err != nil {
			return false, err
		}
		return *d.Spec.Replicas == 3, nil
	}, harness.Timeout(2*time.Minute))
	if time.Now().Before(next) {
		t.Fatalf("scaled before the scheduled time %v", next)
	}
	harness.Eventually(t, "the execution is recorded with the replicas applied", func(ctx context.Context) (bool, error) {
		h, err := history(ctx, "to-web")
		if err != nil || len(h.SuccessfulExecutions) == 0 {
			return false, err
		}
		e := h.SuccessfulExecutions[0]
		if !e.ScheduleTime.Time.Equal(next) || e.AppliedReplicas == nil || *e.AppliedReplicas != 3 {
			t.Fatalf("execution %+v, want scheduled at %v with 3 replicas", e, next)
		}
		return h.NextExecutionTime != nil && h.NextExecutionTime.After(next), nil
	})
	harness.Eventually(t, "the FederatedHPA gets min 2 and max 8", func(ctx context.Context) (bool, error) {
		got := &autoscalingv1alpha1.FederatedHPA{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(fhpa), got); err != nil {
			return false, err
		}
		return got.Spec.MaxReplicas == 8 && got.Spec.MinReplicas != nil && *got.Spec.MinReplicas == 2, nil
	}, harness.Timeout(time.Minute))
	h, err := history(ctx, "asleep")
	if err != nil {
		t.Fatal(err)
	}
	if h.RuleName != "every-minute" || h.NextExecutionTime != nil || len(h.SuccessfulExecutions) != 0 {
		t.Errorf("suspended rule history %+v, want no next execution and no executions", h)
	}
}
