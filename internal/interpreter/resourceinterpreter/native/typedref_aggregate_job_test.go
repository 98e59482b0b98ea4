package native_test

import (
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Unchanged since the typed implementation: production code serves as
// the reference (export_test.go).
var (
	jobFinishedAs       = native.JobFinishedAs
	aggregatedJobStatus = native.AggregatedJobStatus
	later               = native.Later
)

// Reasons and messages of the conditions an aggregated Job gets.

// aggregateJob merges the member Jobs' statuses, unless the template Job
// has already finished: its status is then final.
func aggregateJob(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var job batchv1.Job
	if err := toTyped(obj, &job); err != nil {
		return nil, err
	}
	if jobFinishedAs(&job.Status) != "" {
		return obj, nil
	}
	status, err := aggregatedJobStatus(job.Status.StartTime, items)
	if err != nil {
		return nil, err
	}
	if equality.Semantic.DeepEqual(job.Status, *status) {
		return obj, nil
	}
	job.Status = *status
	return toUnstructured(&job)
}

// aggregateCronJob concatenates the active Jobs and keeps the latest
// schedule and success times.
func aggregateCronJob(obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	var cronJob batchv1.CronJob
	if err := toTyped(obj, &cronJob); err != nil {
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
	if equality.Semantic.DeepEqual(cronJob.Status, status) {
		return obj, nil
	}
	cronJob.Status.Active = status.Active
	cronJob.Status.LastScheduleTime = status.LastScheduleTime
	cronJob.Status.LastSuccessfulTime = status.LastSuccessfulTime
	return toUnstructured(&cronJob)
}
