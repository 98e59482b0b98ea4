package estimatorserver

import (
	"context"
	"path"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Karmada's karmada-scheduler-estimator metrics (subsystem
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
	requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "propel_scheduler_estimator_server_requests_total",
		Help: "Estimator RPCs served by method and gRPC status code.",
	}, []string{"method", "code"})

	estimatingRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Subsystem: estimatorSubsystem,
		Name:      "estimating_request_total",
		Help:      "Estimator RPCs by result and type (the RPC method).",
	}, []string{"result", "type"})

	estimatingAlgorithmDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem: estimatorSubsystem,
		Name:      "estimating_algorithm_duration_seconds",
		Help:      "Seconds an estimator RPC (step Total) or one of its steps took.",
		Buckets:   prometheus.ExponentialBuckets(0.001, 2, 10),
	}, []string{"result", "type", "step"})

	extensionPointDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem: estimatorSubsystem,
		Name:      "estimating_plugin_extension_point_duration_seconds",
		Help:      "Seconds one estimate of replicas or component sets took.",
		Buckets:   prometheus.ExponentialBuckets(0.0001, 2, 12),
	}, []string{"estimating_plugin_extension_point"})

	pluginExecutionDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem: estimatorSubsystem,
		Name:      "estimating_plugin_execution_duration_seconds",
		Help:      "Seconds one estimating plugin took in one estimate.",
		Buckets:   prometheus.ExponentialBuckets(0.00001, 1.5, 20),
	}, []string{"estimating_plugin", "estimating_plugin_extension_point"})
)

func init() {
	metrics.Registry.MustRegister(requestsTotal, estimatingRequests, estimatingAlgorithmDuration,
		extensionPointDuration, pluginExecutionDuration)
}

func resultOf(err error) string {
	if err != nil {
		return "error"
	}
	return "success"
}

// countRequests is the unary interceptor recording every RPC: Propel's
// count by status code, and Karmada's count and Total duration by result
// and type (the method name, which is Karmada's type value).
func countRequests(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	start := time.Now()
	res, err := handler(ctx, req)
	requestsTotal.WithLabelValues(info.FullMethod, status.Code(err).String()).Inc()
	method := path.Base(info.FullMethod)
	estimatingRequests.WithLabelValues(resultOf(err), method).Inc()
	estimatingAlgorithmDuration.WithLabelValues(resultOf(err), method, stepTotal).Observe(time.Since(start).Seconds())
	return res, err
}

// observeUnschedulableStep records one step of GetUnschedulableReplicas
// begun at start.
func observeUnschedulableStep(step string, start time.Time, err error) {
	estimatingAlgorithmDuration.WithLabelValues(resultOf(err), "GetUnschedulableReplicas", step).Observe(time.Since(start).Seconds())
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
