package cronfederatedhpa

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	autoscalingv1alpha1 "github.com/propel-mc/propel/pkg/apis/autoscaling/v1alpha1"
)

// maxScheduleLength bounds what is parsed: a cron expression is a few
// dozen characters.
const maxScheduleLength = 1024

// standardParser reads Kubernetes CronJob syntax: five fields and the
// @descriptors, no seconds.
var standardParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ruleSchedule is a rule's parsed schedule in its time zone.
type ruleSchedule struct {
	schedule cron.Schedule
	location *time.Location
}

// parseRule parses the rule's schedule and time zone (default: the
// process's local zone, as in Karmada). A TZ= or CRON_TZ= prefix in the
// schedule is refused: the zone belongs in timeZone.
func parseRule(r autoscalingv1alpha1.CronFederatedHPARule) (*ruleSchedule, error) {
	if len(r.Schedule) > maxScheduleLength {
		return nil, fmt.Errorf("rule %s: schedule is %d characters long, at most %d", r.Name, len(r.Schedule), maxScheduleLength)
	}
	if s := strings.TrimSpace(r.Schedule); strings.HasPrefix(s, "TZ=") || strings.HasPrefix(s, "CRON_TZ=") {
		return nil, fmt.Errorf("rule %s: schedule %q: set the time zone in timeZone, not in the schedule", r.Name, r.Schedule)
	}
	sched, err := standardParser.Parse(r.Schedule)
	if err != nil {
		return nil, fmt.Errorf("rule %s: schedule %q: %w", r.Name, r.Schedule, err)
	}
	loc := time.Local
	if r.TimeZone != nil && *r.TimeZone != "" {
		if loc, err = time.LoadLocation(*r.TimeZone); err != nil {
			return nil, fmt.Errorf("rule %s: timeZone %q: %w", r.Name, *r.TimeZone, err)
		}
	}
	return &ruleSchedule{schedule: sched, location: loc}, nil
}

// next is the first fire time strictly after t (zero when the schedule
// never fires again).
func (s *ruleSchedule) next(t time.Time) time.Time {
	return s.schedule.Next(t.In(s.location))
}
