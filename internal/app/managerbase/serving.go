package managerbase

import (
	"github.com/spf13/pflag"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// Serving are the process's HTTP endpoints: metrics, health probes and
// pprof.
type Serving struct {
	MetricsBindAddress string
	// MetricsSecure serves metrics over HTTPS behind authentication and
	// authorization (TokenReview and SubjectAccessReview against the
	// control plane); off by default, which is Karmada's plain HTTP.
	MetricsSecure bool
	// MetricsCertDir holds tls.crt and tls.key for secure metrics; empty
	// means a self-signed certificate generated at start.
	MetricsCertDir         string
	HealthProbeBindAddress string
	// EnablePprof serves net/http/pprof on ProfilingBindAddress (Karmada's
	// --enable-pprof, --profiling-bind-address).
	EnablePprof          bool
	ProfilingBindAddress string
}

// NewServing returns Karmada's defaults: metrics on :8080, the health
// probes on healthProbe, pprof (off) on :6060.
func NewServing(healthProbe string) Serving {
	return Serving{MetricsBindAddress: ":8080", HealthProbeBindAddress: healthProbe, ProfilingBindAddress: ":6060"}
}

// ServingFlags say which of the optional endpoint flags a binary has.
type ServingFlags struct {
	// SecureMetrics registers --metrics-secure and --metrics-cert-dir.
	SecureMetrics bool
	// Pprof registers --enable-pprof and --profiling-bind-address.
	Pprof bool
}

// AddFlags registers the endpoint flags on fs.
func (s *Serving) AddFlags(fs *pflag.FlagSet, f ServingFlags) {
	fs.StringVar(&s.MetricsBindAddress, "metrics-bind-address", s.MetricsBindAddress, "Prometheus metrics address; '0' disables.")
	if f.SecureMetrics {
		fs.BoolVar(&s.MetricsSecure, "metrics-secure", s.MetricsSecure, "Serve metrics over HTTPS to callers the control plane authenticates and authorizes (get on the non-resource URL /metrics). Off by default: plain HTTP to anyone, as Karmada serves them.")
		fs.StringVar(&s.MetricsCertDir, "metrics-cert-dir", s.MetricsCertDir, "Directory with tls.crt and tls.key for --metrics-secure; empty generates a self-signed certificate.")
	}
	fs.StringVar(&s.HealthProbeBindAddress, "health-probe-bind-address", s.HealthProbeBindAddress, "Health probe address (/healthz, /readyz); '0' disables.")
	if f.Pprof {
		fs.BoolVar(&s.EnablePprof, "enable-pprof", s.EnablePprof, "Serve net/http/pprof profiles on --profiling-bind-address.")
		fs.StringVar(&s.ProfilingBindAddress, "profiling-bind-address", s.ProfilingBindAddress, "Address of the pprof endpoints when --enable-pprof is set.")
	}
}

// MetricsOptions serves metrics on MetricsBindAddress, over HTTPS behind
// the control plane's authentication and authorization (metricsauth.go)
// when MetricsSecure is on.
func (s Serving) MetricsOptions() metricsserver.Options {
	opts := metricsserver.Options{BindAddress: s.MetricsBindAddress}
	if s.MetricsSecure {
		opts.SecureServing = true
		opts.FilterProvider = authenticatedMetrics
		opts.CertDir = s.MetricsCertDir
	}
	return opts
}

// PprofAddress is where controller-runtime serves pprof; "0" turns it off.
func (s Serving) PprofAddress() string {
	if !s.EnablePprof {
		return "0"
	}
	return s.ProfilingBindAddress
}
