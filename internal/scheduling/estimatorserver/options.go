package estimatorserver

import (
	"github.com/spf13/pflag"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/app/managerbase"
)

// Options are propel-scheduler-estimator's flags, named and defaulted as
// karmada-scheduler-estimator's.
type Options struct {
	// Connection reaches the member cluster's API server.
	managerbase.Connection
	// Serving's HealthProbeBindAddress serves /healthz and /readyz, its
	// MetricsBindAddress /metrics; "0" disables either. The estimator
	// serves no profiles and its metrics are plain HTTP.
	managerbase.Serving
	ClusterName string
	// BindAddress and ServerPort are where gRPC is served.
	BindAddress string
	ServerPort  int
	TLS         TLSFiles
	// Compatibility's --feature-gates: the logging gates and
	// ResourceQuotaEstimate (answers capped by the namespace's
	// ResourceQuotas) act here; the gates Propel does not implement are
	// reported as having no effect when set away from their defaults.
	commandline.Compatibility
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
		Connection:    managerbase.Connection{KubeAPIQPS: 20, KubeAPIBurst: 30},
		Serving:       managerbase.NewServing(":10351"),
		BindAddress:   "0.0.0.0",
		ServerPort:    10352,
		Compatibility: commandline.NewCompatibility(),
	}
}

// AddFlags registers the options on fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	o.Connection.AddFlags(fs, managerbase.ConnectionFlags{Target: "the member cluster's", Master: true, InClusterDefault: true})
	o.Serving.AddFlags(fs, managerbase.ServingFlags{})
	fs.StringVar(&o.ClusterName, "cluster-name", o.ClusterName, "Name of the member cluster as registered in Karmada; requests for another cluster are refused.")
	fs.StringVar(&o.BindAddress, "bind-address", o.BindAddress, "IP address the gRPC server listens on.")
	fs.IntVar(&o.ServerPort, "server-port", o.ServerPort, "gRPC port.")
	fs.StringVar(&o.TLS.CertFile, "grpc-auth-cert-file", o.TLS.CertFile, "Serving certificate of the gRPC server; enables TLS.")
	fs.StringVar(&o.TLS.KeyFile, "grpc-auth-key-file", o.TLS.KeyFile, "Key of --grpc-auth-cert-file.")
	fs.StringVar(&o.TLS.ClientCAFile, "grpc-client-ca-file", o.TLS.ClientCAFile, "CA verifying client certificates; with TLS, clients must present one.")
	fs.BoolVar(&o.TLS.InsecureSkipClientVerify, "insecure-skip-grpc-client-verify", o.TLS.InsecureSkipClientVerify, "Do not require or verify client certificates.")
	o.Compatibility.AddFlags(fs, "karmada-scheduler-estimator", inactiveFlags)
}
