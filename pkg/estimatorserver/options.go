package estimatorserver

import (
	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"k8s.io/component-base/featuregate"

	"github.com/propel-mc/propel/pkg/commandline"
)

// Options are propel-scheduler-estimator's flags, named and defaulted as
// karmada-scheduler-estimator's.
type Options struct {
	Kubeconfig  string
	Master      string
	ClusterName string
	// BindAddress and ServerPort are where gRPC is served.
	BindAddress string
	ServerPort  int
	// HealthProbeBindAddress serves /healthz and /readyz, MetricsBindAddress
	// /metrics; "0" disables either.
	HealthProbeBindAddress string
	MetricsBindAddress     string
	KubeAPIQPS             float32
	KubeAPIBurst           int
	TLS                    TLSFiles
	// FeatureGates is --feature-gates: Karmada's gate names (its
	// installers pass the same gates to every component); only the
	// logging gates act here, the others are reported as having no
	// effect when set away from their defaults.
	FeatureGates featuregate.MutableFeatureGate

	inactive *commandline.Inactive
}

// inactiveFlags are karmada-scheduler-estimator flags accepted without
// effect: the estimator computes one request at a time without a worker
// pool, and serves no profiles.
var inactiveFlags = []commandline.Flag{
	{Name: "parallelism", Type: "int", Default: "0"},
	{Name: "enable-pprof", Type: "bool"},
	{Name: "profiling-bind-address", Type: "string", Default: `":6060"`},
}

// NewOptions returns karmada-scheduler-estimator's defaults.
func NewOptions() *Options {
	return &Options{
		BindAddress:            "0.0.0.0",
		ServerPort:             10352,
		HealthProbeBindAddress: ":10351",
		MetricsBindAddress:     ":8080",
		KubeAPIQPS:             20,
		KubeAPIBurst:           30,
		FeatureGates:           commandline.NewFeatureGates(),
	}
}

// AddFlags registers the options on fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path to the member cluster's kubeconfig (in-cluster config when empty).")
	fs.StringVar(&o.Master, "master", o.Master, "Address of the member's API server; overrides the kubeconfig's server.")
	fs.StringVar(&o.ClusterName, "cluster-name", o.ClusterName, "Name of the member cluster as registered in Karmada; requests for another cluster are refused.")
	fs.StringVar(&o.BindAddress, "bind-address", o.BindAddress, "IP address the gRPC server listens on.")
	fs.IntVar(&o.ServerPort, "server-port", o.ServerPort, "gRPC port.")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress, "Health probe address (/healthz, /readyz); '0' disables.")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress, "Prometheus metrics address (plain HTTP); '0' disables.")
	fs.Float32Var(&o.KubeAPIQPS, "kube-api-qps", o.KubeAPIQPS, "QPS to the member's API server.")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", o.KubeAPIBurst, "Burst to the member's API server.")
	fs.StringVar(&o.TLS.CertFile, "grpc-auth-cert-file", o.TLS.CertFile, "Serving certificate of the gRPC server; enables TLS.")
	fs.StringVar(&o.TLS.KeyFile, "grpc-auth-key-file", o.TLS.KeyFile, "Key of --grpc-auth-cert-file.")
	fs.StringVar(&o.TLS.ClientCAFile, "grpc-client-ca-file", o.TLS.ClientCAFile, "CA verifying client certificates; with TLS, clients must present one.")
	fs.BoolVar(&o.TLS.InsecureSkipClientVerify, "insecure-skip-grpc-client-verify", o.TLS.InsecureSkipClientVerify, "Do not require or verify client certificates.")
	if o.FeatureGates == nil {
		o.FeatureGates = commandline.NewFeatureGates()
	}
	commandline.AddFeatureGatesFlag(fs, o.FeatureGates)
	o.inactive = commandline.AddInactiveFlags(fs, "karmada-scheduler-estimator", inactiveFlags)
}

// warnInactive logs, once, every Karmada flag and feature gate given on
// the command line that the estimator accepts but does not act on.
func (o *Options) warnInactive(logger logr.Logger) {
	if o.inactive != nil {
		o.inactive.Warn(logger)
	}
	commandline.WarnInactiveGates(logger, o.FeatureGates)
}
