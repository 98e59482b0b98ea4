package accurate

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Labels carry the RPC and the result, never the cluster, so that the
// cardinality stays fixed; logs name the cluster.
var (
	callsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "propel_scheduler_estimator_calls_total",
		Help: "Calls to accurate scheduler estimators by method and result (success, error: failed or timed out, unresolved: no estimator Service).",
	}, []string{"method", "result"})
	callDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "propel_scheduler_estimator_call_duration_seconds",
		Help:    "Latency of calls to accurate scheduler estimators by method.",
		Buckets: []float64{0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5},
	}, []string{"method"})
)

func init() { metrics.Registry.MustRegister(callsTotal, callDuration) }
