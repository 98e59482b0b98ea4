package resourceinterpreter

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// Metrics are labelled by operation, layer and GVK, never per object, so
// their cardinality stays bounded by the kinds in use.
var (
	callsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "propel_resource_interpreter_calls_total",
		Help: "Resource interpreter calls by operation, answering layer, GVK and result (success or error).",
	}, []string{"operation", "layer", "gvk", "result"})
	callDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "propel_resource_interpreter_call_duration_seconds",
		Help:    "Latency of resource interpreter calls by operation, answering layer and GVK.",
		Buckets: []float64{0.00001, 0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5},
	}, []string{"operation", "layer", "gvk"})
)

func init() {
	metrics.Registry.MustRegister(callsTotal, callDuration)
}

// callMetrics are the children of the vectors for one (operation, layer,
// GVK). Resolving them from label values hashes every label and renders
// the GVK, which costs more than a native operation, so each route (see
// route) resolves them once and keeps them.
type callMetrics struct {
	success, failure prometheus.Counter
	duration         prometheus.Observer
}

func metricsFor(op configv1alpha1.InterpreterOperation, layerName string, gvk schema.GroupVersionKind) *callMetrics {
	g := gvkString(gvk)
	return &callMetrics{
		success:  callsTotal.WithLabelValues(string(op), layerName, g, "success"),
		failure:  callsTotal.WithLabelValues(string(op), layerName, g, "error"),
		duration: callDuration.WithLabelValues(string(op), layerName, g),
	}
}

// observeUnanswered counts a call no layer could be picked for (layer
// "none"; not timed).
func observeUnanswered(op configv1alpha1.InterpreterOperation, gvk schema.GroupVersionKind) {
	callsTotal.WithLabelValues(string(op), "none", gvkString(gvk), "error").Inc()
}

// observe counts one call that took d and failed with err (or not).
func (m *callMetrics) observe(d time.Duration, err error) {
	if err != nil {
		m.failure.Inc()
	} else {
		m.success.Inc()
	}
	m.duration.Observe(d.Seconds())
}
