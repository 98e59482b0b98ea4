package cronfederatedhpa

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

func TestParseRuleTimeZone(t *testing.T) {
	s, err := parseRule(autoscalingv1alpha1.CronFederatedHPARule{Name: "r", Schedule: "30 8 * * 1-5", TimeZone: ptr.To("Asia/Tokyo")})
	if err != nil {
		t.Fatal(err)
	}
	// Friday 2026-11-27 23:00 UTC is Saturday 08:00 in Tokyo: the next
	// weekday 08:30 there is Monday, 2026-11-29 23:30 UTC.
	from := time.Date(2026, 11, 27, 23, 0, 0, 0, time.UTC)
	if got, want := s.next(from).UTC(), time.Date(2026, 11, 29, 23, 30, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("next after %v = %v, want %v", from, got, want)
	}
}

func TestParseRuleErrorsNameTheRule(t *testing.T) {
	for _, tc := range []struct {
		rule autoscalingv1alpha1.CronFederatedHPARule
		want string
	}{
		{autoscalingv1alpha1.CronFederatedHPARule{Name: "bad", Schedule: "61 * * * *"}, "schedule"},
		{autoscalingv1alpha1.CronFederatedHPARule{Name: "bad", Schedule: "* * * * * *"}, "schedule"},
		{autoscalingv1alpha1.CronFederatedHPARule{Name: "bad", Schedule: "CRON_TZ=UTC * * * * *"}, "timeZone"},
		{autoscalingv1alpha1.CronFederatedHPARule{Name: "bad", Schedule: "* * * * *", TimeZone: ptr.To("Mars/Olympus")}, "timeZone"},
		{autoscalingv1alpha1.CronFederatedHPARule{Name: "bad", Schedule: strings.Repeat("*", 2000)}, "at most"},
	} {
		_, err := parseRule(tc.rule)
		if err == nil || !strings.Contains(err.Error(), "rule bad") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one naming the rule and %q", tc.rule.Schedule, err, tc.want)
		}
	}
}

func TestHistoriesPrependTrimAndDrop(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	at := func(m int) *metav1.Time { return &metav1.Time{Time: t0.Add(time.Duration(m) * time.Minute)} }
	old := autoscalingv1alpha1.CronFederatedHPAStatus{ExecutionHistories: []autoscalingv1alpha1.ExecutionHistory{
		{RuleName: "gone"},
		{RuleName: "up", SuccessfulExecutions: []autoscalingv1alpha1.SuccessfulExecution{{ScheduleTime: at(1), ExecutionTime: at(1)}, {ScheduleTime: at(0), ExecutionTime: at(0)}},
			FailedExecutions: []autoscalingv1alpha1.FailedExecution{{ScheduleTime: at(0), ExecutionTime: at(0), Message: "old"}}},
	}}
	rules := []autoscalingv1alpha1.CronFederatedHPARule{{Name: "up"}, {Name: "new"}}
	executions := []execution{
		{rule: "up", scheduled: at(2).Time, executed: at(2).Time, replicas: ptr.To[int32](4), successLimit: 2, failLimit: 0},
	}
	got := histories(old, rules, map[string]*metav1.Time{"up": at(3), "new": nil}, executions)
	if len(got.ExecutionHistories) != 2 || got.ExecutionHistories[0].RuleName != "up" || got.ExecutionHistories[1].RuleName != "new" {
		t.Fatalf("histories %+v, want up then new, gone dropped", got.ExecutionHistories)
	}
	up := got.ExecutionHistories[0]
	if len(up.SuccessfulExecutions) != 2 || !up.SuccessfulExecutions[0].ScheduleTime.Equal(at(2)) || *up.SuccessfulExecutions[0].AppliedReplicas != 4 || !up.SuccessfulExecutions[1].ScheduleTime.Equal(at(1)) {
		t.Errorf("successful executions %+v, want the new one first, trimmed to 2", up.SuccessfulExecutions)
	}
	if len(up.FailedExecutions) != 0 {
		t.Errorf("failedHistoryLimit 0 keeps no entries, got %+v", up.FailedExecutions)
	}
	if !up.NextExecutionTime.Equal(at(3)) || got.ExecutionHistories[1].NextExecutionTime != nil {
		t.Errorf("next execution times %v %v", up.NextExecutionTime, got.ExecutionHistories[1].NextExecutionTime)
	}
	if limit(nil) != 3 || limit(ptr.To[int32](0)) != 0 || limit(ptr.To[int32](-1)) != 0 {
		t.Error("history limits: default 3, zero and negative keep none")
	}
}

// FuzzParseRule feeds schedules and time zones as a user may write them:
// parsing never panics, and a schedule that parses fires after the time it
// is asked from (or never).
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"* * * * *", "*/5 0-23/2 1,15 * MON-FRI", "@hourly", "@every 1h", "0 0 31 2 *", "61 * * * *", ""} {
		f.Add(s, "Europe/Paris")
	}
	from := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, schedule, zone string) {
		s, err := parseRule(autoscalingv1alpha1.CronFederatedHPARule{Name: "fuzz", Schedule: schedule, TimeZone: &zone})
		if err != nil {
			return
		}
		if next := s.next(from); !next.IsZero() && !next.After(from) {
			t.Fatalf("%q in %q: next %v is not after %v", schedule, zone, next, from)
		}
	})
}
