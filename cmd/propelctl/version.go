package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/spf13/cobra"
	apiversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/internal/app/version"
)

// maxMetricsBytes bounds what version reads of a metrics endpoint; a
// controller manager's whole exposition is far smaller.
const maxMetricsBytes = 16 << 20

// versions is what version prints; -o json|yaml print it as is.
type versions struct {
	ClientVersion            *apiversion.Info `json:"clientVersion,omitempty"`
	ServerVersion            *apiversion.Info `json:"serverVersion,omitempty"`
	ControllerManagerVersion *apiversion.Info `json:"controllerManagerVersion,omitempty"`
}

func newVersionCommand(cp *controlPlaneFlags) *cobra.Command {
	var output, metricsURL string
	var clientOnly bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print propelctl's version and, when reachable, the control plane's and the controller manager's",
		Long: `version prints propelctl's version, the control plane API server's
(its /version) and, with --controller-manager-metrics-url, the version
propel-controller-manager reports in karmada_build_info. A control plane
or metrics endpoint that does not answer is reported on stderr; the
client version is printed all the same and the command succeeds.`,
		Example: `  # Client and control plane versions
  propelctl version

  # Only propelctl's version, as JSON
  propelctl version --client -o json

  # Also the controller manager's, from its metrics endpoint
  propelctl version --controller-manager-metrics-url http://127.0.0.1:8080/metrics`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "" && output != "json" && output != "yaml" {
				return fmt.Errorf("unknown output format %q: allowed formats are json, yaml (the default is text)", output)
			}
			v := versions{ClientVersion: infoFromLabels(version.BuildLabels())}
			if !clientOnly {
				var err error
				if v.ServerVersion, err = serverVersion(cp); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "propelctl: control plane version: %v\n", err)
				}
				if metricsURL != "" {
					if v.ControllerManagerVersion, err = controllerManagerVersion(cmd.Context(), metricsURL); err != nil {
						fmt.Fprintf(cmd.ErrOrStderr(), "propelctl: controller manager version: %v\n", err)
					}
				}
			}
			return printVersions(cmd.OutOrStdout(), output, v)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&output, "output", "o", "", "Output format. One of: (json, yaml). The default is text.")
	f.StringVar(&metricsURL, "controller-manager-metrics-url", "", "URL of propel-controller-manager's metrics endpoint, to read its karmada_build_info.")
	f.BoolVar(&clientOnly, "client", false, "Print the client version only; contact nothing.")
	return cmd
}

func printVersions(w io.Writer, output string, v versions) error {
	switch output {
	case "json":
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	case "yaml":
		data, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	fmt.Fprintf(w, "Client Version: %s\n", v.ClientVersion.GitVersion)
	if v.ServerVersion != nil {
		fmt.Fprintf(w, "Server Version: %s\n", v.ServerVersion.GitVersion)
	}
	if v.ControllerManagerVersion != nil {
		fmt.Fprintf(w, "Controller Manager Version: %s\n", v.ControllerManagerVersion.GitVersion)
	}
	return nil
}

// serverVersion is the control plane API server's /version.
func serverVersion(cp *controlPlaneFlags) (*apiversion.Info, error) {
	cfg, err := cp.restConfig()
	if err != nil {
		return nil, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return dc.ServerVersion()
}

// controllerManagerVersion reads karmada_build_info from the metrics
// endpoint at url.
func controllerManagerVersion(ctx context.Context, url string) (*apiversion.Info, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(io.LimitReader(resp.Body, maxMetricsBytes))
	if err != nil {
		return nil, fmt.Errorf("metrics of %s: %w", url, err)
	}
	family := families["karmada_build_info"]
	if family == nil || len(family.GetMetric()) == 0 {
		return nil, fmt.Errorf("%s has no karmada_build_info", url)
	}
	labels := map[string]string{}
	for _, l := range family.GetMetric()[0].GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	return infoFromLabels(labels), nil
}

// infoFromLabels is a version.Info of karmada_build_info's labels.
func infoFromLabels(l map[string]string) *apiversion.Info {
	return &apiversion.Info{
		GitVersion: l["git_version"], GitCommit: l["git_commit"], GitTreeState: l["git_tree_state"],
		BuildDate: l["build_date"], GoVersion: l["go_version"], Compiler: l["compiler"], Platform: l["platform"],
	}
}
