package estimatorserver

import (
	"context"
	"path"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"github.com/propel-mc/propel/internal/shared/metricreg"
)

// Karmada's karmada-scheduler-estimator metrics (prefix
// karmada_scheduler_estimator), beside Propel's own request counter. All
// are served from controller-runtime's registry, as Karmada serves them.
const estimatorSubsystem = "karmada_scheduler_estimator"

// Values of the step label of the algorithm duration.
const (
	stepTotal                        = "Total"
	stepGetObjectFromCache           = "GetObjectFromCache"
	stepGetWorkloadUnschedulablePods = "GetWorkloadUnschedulablePods"
)

// Values of the estimating_plugin_extension_point label, and the plugin
// whose work Propel's node capacity estimate does.
const (
	extensionEstimateReplicas   = "estimate_replicas"
	extensionEstimateComponents = "estimate_components"
	pluginNodeResource          = "NodeResourceEstimator"
)

var (
	// requestsTotal counts the RPCs served by method and gRPC status code.
	requestsTotal = metricreg.CounterVec("propel_scheduler_estimator_server_requests_total",
		"Estimator RPCs served by method and gRPC status code.", "method", "code")
	estimatingRequests = metricreg.CounterVec(estimatorSubsystem+"_estimating_request_total",
		"Estimator RPCs by result and type (the RPC method).", "result", "type")
	estimatingAlgorithmDuration = metricreg.HistogramVec(estimatorSubsystem+"_estimating_algorithm_duration_seconds",
		"Seconds an estimator RPC (step Total) or one of its steps took.",
		prometheus.ExponentialBuckets(0.001, 2, 10), "result", "type", "step")
	extensionPointDuration = metricreg.HistogramVec(estimatorSubsystem+"_estimating_plugin_extension_point_duration_seconds",
		"Seconds one estimate of replicas or component sets took.",
		prometheus.ExponentialBuckets(0.0001, 2, 12), "estimating_plugin_extension_point")
	pluginExecutionDuration = metricreg.HistogramVec(estimatorSubsystem+"_estimating_plugin_execution_duration_seconds",
		"Seconds one estimating plugin took in one estimate.",
		prometheus.ExponentialBuckets(0.00001, 1.5, 20), "estimating_plugin", "estimating_plugin_extension_point")
)

// countRequests is the unary interceptor recording every RPC: Propel's
// count by status code, and Karmada's count and Total duration by result
// and type (the method name, which is Karmada's type value).
func countRequests(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	start := time.Now()
	res, err := handler(ctx, req)
	requestsTotal.WithLabelValues(info.FullMethod, status.Code(err).String()).Inc()
	method := path.Base(info.FullMethod)
	estimatingRequests.WithLabelValues(metricreg.Result(err), method).Inc()
	estimatingAlgorithmDuration.WithLabelValues(metricreg.Result(err), method, stepTotal).Observe(time.Since(start).Seconds())
	return res, err
}

// observeUnschedulableStep records one step of GetUnschedulableReplicas
// begun at start.
func observeUnschedulableStep(step string, start time.Time, err error) {
	estimatingAlgorithmDuration.WithLabelValues(metricreg.Result(err), "GetUnschedulableReplicas", step).Observe(time.Since(start).Seconds())
}

// timedEstimate runs one estimate at extension point: the node capacity
// step, then, unless it failed, the quota step; the answer is the smaller.
// It records the extension point's run and each step as the Karmada
// plugin whose work it does.
func timedEstimate(point string, nodes func() (int64, error), quotas func() int64) (int64, error) {
	start := time.Now()
	n, err := nodes()
	pluginExecutionDuration.WithLabelValues(pluginNodeResource, point).Observe(time.Since(start).Seconds())
	if err == nil {
		quotaStart := time.Now()
		n = min(n, quotas())
		pluginExecutionDuration.WithLabelValues(pluginResourceQuota, point).Observe(time.Since(quotaStart).Seconds())
	}
	extensionPointDuration.WithLabelValues(point).Observe(time.Since(start).Seconds())
	return n, err
}
