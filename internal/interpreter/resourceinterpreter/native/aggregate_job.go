package native

import (
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Reasons and messages of the conditions an aggregated Job gets.
const (
	jobFailedReason               = "JobFailed"
	jobFailedMessagePrefix        = "Job executed failed in member clusters "
	jobCompletedReason            = "Completed"
	jobCompletedMessage           = "Job completed"
	jobCompletionsReachedReason   = "CompletionsReached"
	jobSuccessCriteriaMetMessages = "All member clusters have met success criteria"
)

// aggregateJob merges the member Jobs' statuses, unless the template Job
// has already finished: its status is then final.
func aggregateJob(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var current batchv1.JobStatus
	if err := fromNested(obj, &current, "status"); err != nil {
		return nil, err
	}
	if jobFinishedAs(&current) != "" {
		return obj, nil
	}
	status, err := aggregatedJobStatus(current.StartTime, items)
	if err != nil {
		return nil, err
	}
	return replaceStatus(obj, &current, *status)
}

// jobFinishedAs is the type of the first true Complete or Failed condition,
// or "" while the Job runs.
func jobFinishedAs(s *batchv1.JobStatus) batchv1.JobConditionType {
	for _, c := range s.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.Type
		}
	}
	return ""
}

func jobConditionTrue(s *batchv1.JobStatus, t batchv1.JobConditionType) bool {
	for _, c := range s.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// jobTally accumulates member Job statuses.
type jobTally struct {
	status                            batchv1.JobStatus
	failedClusters                    []string
	succeeded, successCriteriaMet     int
	started, completed                int
	earliestStart, latestCompletionAt *metav1.Time
}

func (t *jobTally) add(item *workv1alpha2.AggregatedStatusItem, m *batchv1.JobStatus) {
	switch jobFinishedAs(m) {
	case batchv1.JobComplete:
		t.succeeded++
	case batchv1.JobFailed:
		t.failedClusters = append(t.failedClusters, item.ClusterName)
	}
	if jobConditionTrue(m, batchv1.JobSuccessCriteriaMet) {
		t.successCriteriaMet++
	}
	if m.StartTime != nil {
		t.started++
		if t.earliestStart == nil || m.StartTime.Before(t.earliestStart) {
			t.earliestStart = m.StartTime
		}
	}
	if m.CompletionTime != nil {
		t.completed++
		if t.latestCompletionAt == nil || t.latestCompletionAt.Before(m.CompletionTime) {
			t.latestCompletionAt = m.CompletionTime
		}
	}
	t.status.Active += m.Active
	t.status.Succeeded += m.Succeeded
	t.status.Failed += m.Failed
}

// aggregatedJobStatus sums the counters; the Job failed if any member
// failed, completed (and met its success criteria) when every item did.
// The start time is the template's, else the earliest once every item
// reports one; the completion time the latest once every item reports one.
func aggregatedJobStatus(templateStart *metav1.Time, items []workv1alpha2.AggregatedStatusItem) (*batchv1.JobStatus, error) {
	var t jobTally
	if err := decodeEach(items, t.add); err != nil {
		return nil, err
	}
	s := &t.status
	now := metav1.Now()
	condition := func(typ batchv1.JobConditionType, reason, message string) batchv1.JobCondition {
		return batchv1.JobCondition{Type: typ, Status: corev1.ConditionTrue, LastProbeTime: now,
			LastTransitionTime: now, Reason: reason, Message: message}
	}
	if len(t.failedClusters) > 0 {
		s.Conditions = append(s.Conditions, condition(batchv1.JobFailed, jobFailedReason,
			jobFailedMessagePrefix+strings.Join(t.failedClusters, ",")))
	}
	if t.succeeded > 0 && t.succeeded == len(items) {
		s.Conditions = append(s.Conditions, condition(batchv1.JobComplete, jobCompletedReason, jobCompletedMessage))
		if t.successCriteriaMet == len(items) {
			s.Conditions = append(s.Conditions, condition(batchv1.JobSuccessCriteriaMet,
				jobCompletionsReachedReason, jobSuccessCriteriaMetMessages))
		}
	}
	s.StartTime = templateStart
	if s.StartTime == nil && t.started == len(items) {
		s.StartTime = t.earliestStart
	}
	if t.completed == len(items) {
		s.CompletionTime = t.latestCompletionAt
	}
	return s, nil
}

// aggregateCronJob concatenates the active Jobs and keeps the latest
// schedule and success times.
func aggregateCronJob(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var current batchv1.CronJobStatus
	if err := fromNested(obj, &current, "status"); err != nil {
		return nil, err
	}
	var status batchv1.CronJobStatus
	err := decodeEach(items, func(_ *workv1alpha2.AggregatedStatusItem, m *batchv1.CronJobStatus) {
		status.Active = append(status.Active, m.Active...)
		status.LastScheduleTime = later(status.LastScheduleTime, m.LastScheduleTime)
		status.LastSuccessfulTime = later(status.LastSuccessfulTime, m.LastSuccessfulTime)
	})
	if err != nil {
		return nil, err
	}
	if equality.Semantic.DeepEqual(current, status) {
		return obj, nil
	}
	// Only the three aggregated fields change; any other field is kept.
	current.Active, current.LastScheduleTime, current.LastSuccessfulTime = status.Active, status.LastScheduleTime, status.LastSuccessfulTime
	return withTypedStatus(obj, &current)
}

// later is the later of two optional times.
func later(a, b *metav1.Time) *metav1.Time {
	if a == nil || (b != nil && a.Before(b)) {
		return b
	}
	return a
}
