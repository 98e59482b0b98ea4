// Package metricreg declares Prometheus metric vectors registered in
// controller-runtime's registry, the one every Propel binary serves. A
// metric is declared in one line with its full name (greppable against
// Karmada's metric list), help, buckets and label names, and cannot be
// left unregistered. Which binary serves a metric follows from which
// binary links the package that declares it.
package metricreg

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// CounterVec returns a registered counter vector.
func CounterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return register(prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels))
}

// GaugeVec returns a registered gauge vector.
func GaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	return register(prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels))
}

// HistogramVec returns a registered histogram vector with buckets.
func HistogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	return register(prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels))
}

// Histogram returns a registered histogram without labels: unlike a
// vector, it serves its (empty) series before the first observation.
func Histogram(name, help string, buckets []float64) prometheus.Histogram {
	return register(prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}))
}

func register[C prometheus.Collector](c C) C {
	metrics.Registry.MustRegister(c)
	return c
}

// Result is the result label value Karmada's controller and estimator
// metrics give an operation that ended with err: "success" or "error".
func Result(err error) string {
	if err != nil {
		return "error"
	}
	return "success"
}
