package accurate

import "github.com/propel-mc/propel/internal/shared/metricreg"

// Labels carry the RPC and the result, never the cluster, so that the
// cardinality stays fixed; logs name the cluster.
var (
	callsTotal = metricreg.CounterVec("propel_scheduler_estimator_calls_total",
		"Calls to accurate scheduler estimators by method and result (success, error: failed or timed out, unresolved: no estimator Service).",
		"method", "result")
	callDuration = metricreg.HistogramVec("propel_scheduler_estimator_call_duration_seconds",
		"Latency of calls to accurate scheduler estimators by method.",
		[]float64{0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5}, "method")
)
