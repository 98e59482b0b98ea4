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

func observe(op configv1alpha1.InterpreterOperation, layerName string, gvk schema.GroupVersionKind, d time.Duration, err error) {
	result := "success"
	if err != nil {
		result = "error"
	}
	g := gvkString(gvk)
	callsTotal.WithLabelValues(string(op), layerName, g, result).Inc()
	if layerName != "none" {
		callDuration.WithLabelValues(string(op), layerName, g).Observe(d.Seconds())
	}
}
