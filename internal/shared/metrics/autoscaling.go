package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/propel-mc/propel/internal/shared/metricreg"
)

// Values of the metricType label of federatedhpa_pull_metrics_duration_seconds.
const (
	MetricTypeResource = "ResourceMetric"
	MetricTypeRaw      = "RawMetric"
	MetricTypeObject   = "ObjectMetric"
	MetricTypeExternal = "ExternalMetric"
)

// federatedHPABuckets are Karmada's FederatedHPA buckets: 0.01 s to
// 20.48 s.
var federatedHPABuckets = prometheus.ExponentialBuckets(0.01, 2, 12)

var (
	cronProcessDuration = metricreg.HistogramVec("cronfederatedhpa_process_duration_seconds",
		"Seconds one reconcile of a CronFederatedHPA took.", controllerBuckets, "result")
	cronRuleDuration = metricreg.HistogramVec("cronfederatedhpa_rule_process_duration_seconds",
		"Seconds one run of a CronFederatedHPA rule (its scale) took.", controllerBuckets, "result")
	federatedHPAProcessDuration = metricreg.HistogramVec("federatedhpa_process_duration_seconds",
		"Seconds one autoscaling pass of a FederatedHPA took.", federatedHPABuckets, "result")
	federatedHPAPullDuration = metricreg.HistogramVec("federatedhpa_pull_metrics_duration_seconds",
		"Seconds one fetch of a FederatedHPA metric from the members took, by result and metric type.",
		federatedHPABuckets, "result", "metricType")
)

// CronFederatedHPAProcessed observes one reconcile begun at start.
func CronFederatedHPAProcessed(start time.Time, err error) {
	cronProcessDuration.WithLabelValues(Result(err)).Observe(since(start))
}

// CronRuleProcessed observes one rule run begun at start.
func CronRuleProcessed(start time.Time, err error) {
	cronRuleDuration.WithLabelValues(Result(err)).Observe(since(start))
}

// FederatedHPAProcessed observes one autoscaling pass begun at start.
func FederatedHPAProcessed(start time.Time, err error) {
	federatedHPAProcessDuration.WithLabelValues(Result(err)).Observe(since(start))
}

// FederatedHPAMetricPulled observes one metric fetch of metricType begun
// at start.
func FederatedHPAMetricPulled(metricType string, start time.Time, err error) {
	federatedHPAPullDuration.WithLabelValues(Result(err), metricType).Observe(since(start))
}
