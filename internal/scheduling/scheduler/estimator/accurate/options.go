package accurate

import (
	"time"

	"github.com/spf13/pflag"
)

// Options are karmada-scheduler's estimator flags, with its defaults.
type Options struct {
	// Enabled is --enable-scheduler-estimator.
	Enabled bool
	// DisableInPullMode is --disable-scheduler-estimator-in-pull-mode:
	// clusters in Pull mode are not asked.
	DisableInPullMode bool
	// ServiceNamespace and ServicePrefix locate the estimator Service of a
	// cluster: <ServicePrefix>-<cluster> in ServiceNamespace.
	ServiceNamespace string
	ServicePrefix    string
	// Port is the estimator's gRPC port.
	Port int
	// CAFile verifies the estimator's certificate; CertFile and KeyFile
	// are the scheduler's client certificate (mutual TLS).
	CAFile, CertFile, KeyFile string
	// InsecureSkipVerify uses TLS without verifying the server.
	InsecureSkipVerify bool
	// Timeout bounds the calls of one decision.
	Timeout time.Duration
}

// NewOptions returns karmada-scheduler's defaults (estimators disabled).
func NewOptions() *Options {
	return &Options{
		ServiceNamespace: "karmada-system",
		ServicePrefix:    "karmada-scheduler-estimator",
		Port:             10352,
		Timeout:          3 * time.Second,
	}
}

// AddFlags registers the flags on fs under karmada-scheduler's names.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.Enabled, "enable-scheduler-estimator", o.Enabled, "Ask the accurate scheduler estimator of each member cluster (karmada-scheduler-estimator or propel-scheduler-estimator) besides the general estimator.")
	fs.BoolVar(&o.DisableInPullMode, "disable-scheduler-estimator-in-pull-mode", o.DisableInPullMode, "Do not ask the accurate estimators of clusters in Pull mode.")
	fs.StringVar(&o.ServiceNamespace, "scheduler-estimator-service-namespace", o.ServiceNamespace, "Namespace of the estimator Services in the control plane.")
	fs.StringVar(&o.ServicePrefix, "scheduler-estimator-service-prefix", o.ServicePrefix, "Prefix of the estimator Service names: <prefix>-<cluster>.")
	fs.IntVar(&o.Port, "scheduler-estimator-port", o.Port, "gRPC port of the estimators.")
	fs.StringVar(&o.CAFile, "scheduler-estimator-ca-file", o.CAFile, "CA bundle verifying the estimators' serving certificates; enables TLS.")
	fs.StringVar(&o.CertFile, "scheduler-estimator-cert-file", o.CertFile, "Client certificate presented to the estimators (with --scheduler-estimator-key-file).")
	fs.StringVar(&o.KeyFile, "scheduler-estimator-key-file", o.KeyFile, "Key of --scheduler-estimator-cert-file.")
	fs.BoolVar(&o.InsecureSkipVerify, "insecure-skip-estimator-verify", o.InsecureSkipVerify, "Use TLS with the estimators without verifying their certificates.")
	fs.DurationVar(&o.Timeout, "scheduler-estimator-timeout", o.Timeout, "Deadline of the estimator calls of one scheduling decision.")
}
