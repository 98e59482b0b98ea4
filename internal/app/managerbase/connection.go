package managerbase

import (
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Connection is how a process reaches its API server.
type Connection struct {
	Kubeconfig string
	// Master overrides the kubeconfig's server (only the binaries whose
	// Karmada counterpart has --master register it).
	Master       string
	KubeAPIQPS   float32
	KubeAPIBurst int
}

// ConnectionFlags say how Connection.AddFlags describes the flags.
type ConnectionFlags struct {
	// Target names the API server in the help text, e.g. "the control
	// plane (karmada-apiserver)".
	Target string
	// Master registers --master.
	Master bool
	// InClusterDefault says that an empty --kubeconfig means the
	// in-cluster configuration.
	InClusterDefault bool
}

// AddFlags registers the connection flags on fs.
func (c *Connection) AddFlags(fs *pflag.FlagSet, f ConnectionFlags) {
	kubeconfigHelp := "Path to " + f.Target + " kubeconfig."
	if f.InClusterDefault {
		kubeconfigHelp = "Path to " + f.Target + " kubeconfig (in-cluster config when empty)."
	}
	fs.StringVar(&c.Kubeconfig, "kubeconfig", c.Kubeconfig, kubeconfigHelp)
	if f.Master {
		fs.StringVar(&c.Master, "master", c.Master, "Address of the API server; overrides the kubeconfig's server.")
	}
	fs.Float32Var(&c.KubeAPIQPS, "kube-api-qps", c.KubeAPIQPS, "QPS to the API server.")
	fs.IntVar(&c.KubeAPIBurst, "kube-api-burst", c.KubeAPIBurst, "Burst to the API server.")
}

// RESTConfig loads the kubeconfig (the in-cluster configuration when
// both Kubeconfig and Master are empty) and applies the QPS and burst.
func (c Connection) RESTConfig() (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags(c.Master, c.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig %q: %w", c.Kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = c.KubeAPIQPS, c.KubeAPIBurst
	return cfg, nil
}
