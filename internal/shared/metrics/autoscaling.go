package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
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
	cronProcessDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "cronfederatedhpa_process_duration_seconds",
		Help:    "Seconds one reconcile of a CronFederatedHPA took.",
		Buckets: controllerBuckets,
	}, []string{"result"})
	cronRuleDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "cronfederatedhpa_rule_process_duration_seconds",
		Help:    "Seconds one run of a CronFederatedHPA rule (its scale) took.",
		Buckets: controllerBuckets,
	}, []string{"result"})
	federatedHPAProcessDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "federatedhpa_process_duration_seconds",
		Help:    "Seconds one autoscaling pass of a FederatedHPA took.",
		Buckets: federatedHPABuckets,
	}, []string{"result"})
	federatedHPAPullDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "federatedhpa_pull_metrics_duration_seconds",
		Help:    "Seconds one fetch of a FederatedHPA metric from the members took, by result and metric type.",
		Buckets: federatedHPABuckets,
	}, []string{"result", "metricType"})
)

func init() {
	metrics.Registry.MustRegister(cronProcessDuration, cronRuleDuration, federatedHPAProcessDuration, federatedHPAPullDuration)
}

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
