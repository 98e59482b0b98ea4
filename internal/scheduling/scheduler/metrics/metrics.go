// Package metrics defines the scheduler metrics Karmada's karmada-scheduler
// exports (prefix karmada_scheduler), with Karmada's names, labels,
// label values and buckets, so that dashboards and alerts written for
// karmada-scheduler read propel-scheduler unchanged. They are registered
// in controller-runtime's registry, which both binaries serve.
package metrics

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/propel-mc/propel/internal/shared/metricreg"
)

const subsystem = "karmada_scheduler"

// Values of the schedule_type label: ScaleSchedule when only the replicas
// changed, ReconcileSchedule for every other trigger.
const (
	ReconcileSchedule = "ReconcileSchedule"
	ScaleSchedule     = "ScaleSchedule"
)

// Values of the result label of the attempt metrics.
const (
	resultScheduled = "scheduled"
	resultError     = "error"
)

// Values of the schedule_step label.
const (
	StepFilter         = "Filter"
	StepScore          = "Score"
	StepSelect         = "Select"
	StepAssignReplicas = "AssignReplicas"
)

// Values of the event label of queue_incoming_bindings_total.
const (
	EventBindingAdd             = "BindingAdd"
	EventBindingUpdate          = "BindingUpdate"
	EventScheduleAttemptFailure = "ScheduleAttemptFailure"
	EventClusterChanged         = "ClusterChanged"
)

// Values of the extension_point and framework result labels.
const (
	ExtensionFilter = "Filter"
	ExtensionScore  = "Score"

	ResultSuccess       = "Success"
	ResultUnschedulable = "Unschedulable"
	ResultError         = "Error"
)

var (
	scheduleAttempts = metricreg.CounterVec(subsystem+"_schedule_attempts_total",
		"Scheduling runs of bindings that needed scheduling, by result and schedule type.", "result", "schedule_type")
	e2eSchedulingDuration = metricreg.HistogramVec(subsystem+"_e2e_scheduling_duration_seconds",
		"Seconds from the scheduling decision to the written result, by result and schedule type.",
		prometheus.ExponentialBuckets(0.001, 2, 15), "result", "schedule_type")
	schedulingAlgorithmDuration = metricreg.HistogramVec(subsystem+"_scheduling_algorithm_duration_seconds",
		"Seconds spent in each step of the scheduling algorithm.",
		prometheus.ExponentialBuckets(0.001, 2, 15), "schedule_step")
	incomingBindings = metricreg.CounterVec(subsystem+"_queue_incoming_bindings_total",
		"Bindings added to the scheduling queue, by the event that added them.", "event")
	frameworkExtensionPointDuration = metricreg.HistogramVec(subsystem+"_framework_extension_point_duration_seconds",
		"Seconds spent running all plugins of an extension point.",
		prometheus.ExponentialBuckets(0.0001, 2, 12), "extension_point", "result")
	pluginExecutionDuration = metricreg.HistogramVec(subsystem+"_plugin_execution_duration_seconds",
		"Seconds spent in one call of a plugin at an extension point.",
		prometheus.ExponentialBuckets(0.00001, 1.5, 20), "plugin", "extension_point", "result")
)

// stepObservers are the series of the four algorithm steps, looked up
// once: every scheduling attempt records each of them.
var stepObservers = map[string]prometheus.Observer{
	StepFilter:         schedulingAlgorithmDuration.WithLabelValues(StepFilter),
	StepScore:          schedulingAlgorithmDuration.WithLabelValues(StepScore),
	StepSelect:         schedulingAlgorithmDuration.WithLabelValues(StepSelect),
	StepAssignReplicas: schedulingAlgorithmDuration.WithLabelValues(StepAssignReplicas),
}

// BindingScheduled records one scheduling run of scheduleType that started
// at start and ended with err (nil: scheduled).
func BindingScheduled(scheduleType string, start time.Time, err error) {
	result := resultScheduled
	if err != nil {
		result = resultError
	}
	scheduleAttempts.WithLabelValues(result, scheduleType).Inc()
	e2eSchedulingDuration.WithLabelValues(result, scheduleType).Observe(time.Since(start).Seconds())
}

// ScheduleStep records the duration of one algorithm step begun at start.
func ScheduleStep(step string, start time.Time) {
	o, ok := stepObservers[step]
	if !ok {
		o = schedulingAlgorithmDuration.WithLabelValues(step)
	}
	o.Observe(time.Since(start).Seconds())
}

// BindingQueued counts one binding added to the queue by event.
func BindingQueued(event string) {
	incomingBindings.WithLabelValues(event).Inc()
}

// ExtensionPoint records one run of every plugin of an extension point.
func ExtensionPoint(point, result string, d time.Duration) {
	frameworkExtensionPointDuration.WithLabelValues(point, result).Observe(d.Seconds())
}

// Plugin calls and each cluster's Filter extension point are observed
// once per plugin per cluster, and reading the clock for each cost more
// than the decision itself (2.5x a 100-cluster decision on a virtual
// machine whose clock read is slow). So only some scheduling attempts time
// them: one in PluginSampleEvery, and besides at least one every
// PluginSampleInterval so that a quiet scheduler still fills the
// histograms. Their shape is kept at a hundredth of the cost; Karmada
// records them asynchronously and drops what its buffer cannot hold, so
// neither counts every call under load.
const (
	PluginSampleEvery    = 100
	PluginSampleInterval = time.Second
)

// PluginSampler picks the attempts that time their plugin calls.
type PluginSampler struct {
	every     uint64
	interval  time.Duration
	now       func() time.Time
	attempts  atomic.Uint64
	lastTimed atomic.Int64 // UnixNano of the last timed attempt
}

// NewPluginSampler times the first attempt, then one in every and any
// attempt that comes interval or more after the last timed one.
func NewPluginSampler(every uint64, interval time.Duration, now func() time.Time) *PluginSampler {
	return &PluginSampler{every: max(every, 1), interval: interval, now: now}
}

// DefaultPluginSampler is the process's sampler, with PluginSampleEvery
// and PluginSampleInterval.
var DefaultPluginSampler = NewPluginSampler(PluginSampleEvery, PluginSampleInterval, time.Now)

// Next reports whether the next attempt is timed.
func (s *PluginSampler) Next() bool {
	n := s.attempts.Add(1) - 1
	t := s.now().UnixNano()
	if n%s.every != 0 && t-s.lastTimed.Load() < int64(s.interval) {
		return false
	}
	s.lastTimed.Store(t)
	return true
}

// PluginObserver records one plugin's call durations at an extension
// point. The success series is looked up once per scheduling attempt
// rather than once per cluster; the rarer unschedulable one when needed.
type PluginObserver struct {
	plugin, point string
	success       prometheus.Observer
}

// ObserverFor returns the duration recorder of plugin at point.
func ObserverFor(plugin, point string) PluginObserver {
	return PluginObserver{plugin: plugin, point: point, success: pluginExecutionDuration.WithLabelValues(plugin, point, ResultSuccess)}
}

// Observe records one call that took d (callers chain their clock reads:
// one call's end is the next one's start); fits is false when the plugin
// found the cluster unschedulable.
func (o PluginObserver) Observe(d time.Duration, fits bool) {
	if fits {
		o.success.Observe(d.Seconds())
		return
	}
	pluginExecutionDuration.WithLabelValues(o.plugin, o.point, ResultUnschedulable).Observe(d.Seconds())
}
