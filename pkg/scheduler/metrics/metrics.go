// Package metrics defines the scheduler metrics Karmada's karmada-scheduler
// exports (subsystem karmada_scheduler), with Karmada's names, labels,
// label values and buckets, so that dashboards and alerts written for
// karmada-scheduler read propel-scheduler unchanged. They are registered
// in controller-runtime's registry, which both binaries serve.
package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
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
	scheduleAttempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Subsystem: subsystem,
		Name:      "schedule_attempts_total",
		Help:      "Scheduling runs of bindings that needed scheduling, by result and schedule type.",
	}, []string{"result", "schedule_type"})

	e2eSchedulingDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem: subsystem,
		Name:      "e2e_scheduling_duration_seconds",
		Help:      "Seconds from the scheduling decision to the written result, by result and schedule type.",
		Buckets:   prometheus.ExponentialBuckets(0.001, 2, 15),
	}, []string{"result", "schedule_type"})

	schedulingAlgorithmDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem: subsystem,
		Name:      "scheduling_algorithm_duration_seconds",
		Help:      "Seconds spent in each step of the scheduling algorithm.",
		Buckets:   prometheus.ExponentialBuckets(0.001, 2, 15),
	}, []string{"schedule_step"})

	incomingBindings = prometheus.NewCounterVec(prometheus.CounterOpts{
		Subsystem: subsystem,
		Name:      "queue_incoming_bindings_total",
		Help:      "Bindings added to the scheduling queue, by the event that added them.",
	}, []string{"event"})

	frameworkExtensionPointDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem: subsystem,
		Name:      "framework_extension_point_duration_seconds",
		Help:      "Seconds spent running all plugins of an extension point.",
		Buckets:   prometheus.ExponentialBuckets(0.0001, 2, 12),
	}, []string{"extension_point", "result"})

	pluginExecutionDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem: subsystem,
		Name:      "plugin_execution_duration_seconds",
		Help:      "Seconds spent in one call of a plugin at an extension point.",
		Buckets:   prometheus.ExponentialBuckets(0.00001, 1.5, 20),
	}, []string{"plugin", "extension_point", "result"})
)

func init() {
	metrics.Registry.MustRegister(scheduleAttempts, e2eSchedulingDuration, schedulingAlgorithmDuration,
		incomingBindings, frameworkExtensionPointDuration, pluginExecutionDuration)
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
	schedulingAlgorithmDuration.WithLabelValues(step).Observe(time.Since(start).Seconds())
}

// BindingQueued counts one binding added to the queue by event.
func BindingQueued(event string) {
	incomingBindings.WithLabelValues(event).Inc()
}

// ExtensionPoint records one run of every plugin of an extension point.
func ExtensionPoint(point, result string, start time.Time) {
	frameworkExtensionPointDuration.WithLabelValues(point, result).Observe(time.Since(start).Seconds())
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

// Observe records one call begun at start; fits is false when the plugin
// found the cluster unschedulable.
func (o PluginObserver) Observe(start time.Time, fits bool) {
	d := time.Since(start).Seconds()
	if fits {
		o.success.Observe(d)
		return
	}
	pluginExecutionDuration.WithLabelValues(o.plugin, o.point, ResultUnschedulable).Observe(d)
}
