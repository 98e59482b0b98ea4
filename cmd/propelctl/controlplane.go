package main

import (
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"

	"github.com/propel-mc/propel/internal/cli/controlplaneclient"
)

// controlPlaneFlags are the root command's persistent flags that say how
// to reach the control plane: kubectl's set (--kubeconfig, --context,
// --namespace, --as, --token, --server, --request-timeout, ...) plus
// karmadactl's spelling of the context, --karmada-context.
type controlPlaneFlags struct {
	config         *genericclioptions.ConfigFlags
	karmadaContext string
}

func newControlPlaneFlags() *controlPlaneFlags {
	return &controlPlaneFlags{config: genericclioptions.NewConfigFlags(true)}
}

func (c *controlPlaneFlags) addFlags(f *pflag.FlagSet) {
	c.config.AddFlags(f)
	f.StringVar(&c.karmadaContext, "karmada-context", "", "The name of the kubeconfig context of the control plane (karmadactl's name of --context).")
}

// complete folds --karmada-context into --context before the kubeconfig is
// first read; the two naming different contexts is an error.
func (c *controlPlaneFlags) complete() error {
	if c.karmadaContext == "" {
		return nil
	}
	if ctx := *c.config.Context; ctx != "" && ctx != c.karmadaContext {
		return fmt.Errorf("--context %q and --karmada-context %q name different contexts; give one", ctx, c.karmadaContext)
	}
	*c.config.Context = c.karmadaContext
	return nil
}

// restConfig is the control plane's client configuration.
func (c *controlPlaneFlags) restConfig() (*rest.Config, error) {
	if err := c.complete(); err != nil {
		return nil, err
	}
	cfg, err := c.config.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("control plane kubeconfig: %w", err)
	}
	return cfg, nil
}

// clients are the control plane's clients.
func (c *controlPlaneFlags) clients() (*controlplaneclient.Clients, error) {
	cfg, err := c.restConfig()
	if err != nil {
		return nil, err
	}
	return controlplaneclient.New(cfg)
}

// namespace is -n, else the namespace of the kubeconfig context, else
// "default", as with kubectl.
func (c *controlPlaneFlags) namespace() (string, error) {
	if err := c.complete(); err != nil {
		return "", err
	}
	ns, _, err := c.config.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", fmt.Errorf("namespace of the kubeconfig context: %w", err)
	}
	return ns, nil
}
