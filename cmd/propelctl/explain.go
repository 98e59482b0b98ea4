package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/propel-mc/propel/pkg/controlplaneclient"
	"github.com/propel-mc/propel/pkg/explain"
	"github.com/propel-mc/propel/pkg/resourceinterpreter"
)

func newExplainCommand() *cobra.Command {
	var kubeconfig, kubeContext, namespace, output, precedence string
	var memberTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "explain RESOURCE/NAME [-n NAMESPACE] [-o text|json]",
		Short: "Show why a resource template runs where it runs: policy, interpreter, scheduling, Works, members, status",
		Long: `explain reads the control plane (and its members, with the credentials
of their Cluster objects) and prints every stage of one template's
propagation with its answer and who gave it. Live objects do not record
which interpreter layer answered, so the interpreter stack is re-run
locally with the control plane's current webhooks and customizations.
It only reads. -o json prints the documented, stable model
(schema propel.explain/v1, see docs/propelctl.md).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return fmt.Errorf("unknown output format %q (want text or json)", output)
			}
			resource, name, ok := strings.Cut(args[0], "/")
			if !ok || resource == "" || name == "" {
				return fmt.Errorf("want RESOURCE/NAME, got %q", args[0])
			}
			cfg, err := loadConfig(kubeconfig, kubeContext)
			if err != nil {
				return err
			}
			cp, err := controlplaneclient.New(cfg)
			if err != nil {
				return err
			}
			x, err := explain.Live(cmd.Context(), cp, resource, name, namespace, explain.LiveOptions{
				Precedence: resourceinterpreter.Precedence(precedence), MemberTimeout: memberTimeout,
			})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if output == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(x)
			}
			color := false
			if f, ok := out.(*os.File); ok {
				color = term.IsTerminal(int(f.Fd()))
			}
			return explain.Text(out, x, explain.TextOptions{Now: time.Now(), Color: color})
		},
	}
	f := cmd.Flags()
	f.StringVar(&kubeconfig, "kubeconfig", "", "Control plane kubeconfig.")
	f.StringVar(&kubeContext, "karmada-context", "", "Context in the control plane kubeconfig.")
	f.StringVarP(&namespace, "namespace", "n", "default", "Namespace of the template (ignored for cluster-scoped kinds).")
	f.StringVarP(&output, "output", "o", "text", "Output format: text or json.")
	f.StringVar(&precedence, "interpreter-precedence", string(resourceinterpreter.PrecedencePropel), "The controller's --interpreter-precedence (propel or karmada).")
	f.DurationVar(&memberTimeout, "member-timeout", 5*time.Second, "Timeout of each member cluster request.")
	return cmd
}
