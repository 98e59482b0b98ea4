package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/cli/explain"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
)

const traceExample = `  # Every stage of deployment nginx in the namespace of the current context
  propelctl trace deployment/nginx

  # In another namespace, on the control plane of context karmada-apiserver
  propelctl trace deploy/nginx -n prod --context karmada-apiserver

  # The stable JSON model (schema propel.explain/v1), or YAML
  propelctl trace deploy/nginx -o json

  # One field: the clusters the scheduler chose
  propelctl trace deploy/nginx -o jsonpath='{.scheduling.clusters[*].name}'`

// newTraceCommand is trace: why a template runs where it runs.
func newTraceCommand(cp *controlPlaneFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace RESOURCE/NAME",
		Short: "Trace a resource template's propagation: policy, interpreter, scheduling, Works, members, status",
		Long: `trace reads the control plane (and its members, with the credentials
of their Cluster objects) and prints every stage of one template's
propagation with its answer and who gave it. Live objects do not record
which interpreter layer answered, so the interpreter stack is re-run
locally with the control plane's current webhooks and customizations.
It only reads. -o json and -o yaml print the documented, stable model
(schema propel.explain/v1, see docs/propelctl.md); -o name prints the
template's name; -o jsonpath=... and -o go-template=... select fields of
the model.`,
		Example: traceExample,
		Args:    cobra.ExactArgs(1),
	}
	runTrace := addTraceFlags(cmd, cp)
	cmd.RunE = func(cmd *cobra.Command, args []string) error { return runTrace(cmd, args[0]) }
	cmd.ValidArgsFunction = completeResourceNames(cp)
	return cmd
}

// newExplainCommand is trace under its old name, kept for one release: it
// says on stderr that the name is deprecated, then traces.
func newExplainCommand(cp *controlPlaneFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "explain RESOURCE/NAME",
		Short:   "Deprecated name of trace",
		Example: strings.ReplaceAll(traceExample, "propelctl trace", "propelctl explain"),
		Args:    cobra.ExactArgs(1),
		Hidden:  true,
	}
	runTrace := addTraceFlags(cmd, cp)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		fmt.Fprintln(cmd.ErrOrStderr(), `propelctl: "explain" is deprecated and will be removed in the next release; use "propelctl trace"`)
		return runTrace(cmd, args[0])
	}
	cmd.ValidArgsFunction = completeResourceNames(cp)
	return cmd
}

// addTraceFlags adds trace's own flags to cmd and returns what runs it.
func addTraceFlags(cmd *cobra.Command, cp *controlPlaneFlags) func(*cobra.Command, string) error {
	var precedence string
	var memberTimeout time.Duration
	output := newReportOutput(cmd)
	f := cmd.Flags()
	f.StringVar(&precedence, "interpreter-precedence", string(resourceinterpreter.PrecedencePropel), "The controller's --interpreter-precedence (propel or karmada).")
	f.DurationVar(&memberTimeout, "member-timeout", 5*time.Second, "Timeout of each member cluster request.")
	return func(cmd *cobra.Command, arg string) error {
		printer, err := output.printer()
		if err != nil {
			return err
		}
		resource, name, ok := strings.Cut(arg, "/")
		if !ok || resource == "" || name == "" {
			return fmt.Errorf("want RESOURCE/NAME, got %q", arg)
		}
		namespace, err := cp.namespace()
		if err != nil {
			return err
		}
		clients, err := cp.clients()
		if err != nil {
			return err
		}
		x, err := explain.Live(cmd.Context(), clients, resource, name, namespace, explain.LiveOptions{
			Precedence: resourceinterpreter.Precedence(precedence), MemberTimeout: memberTimeout,
		})
		if err != nil {
			return err
		}
		out := cmd.OutOrStdout()
		if printer != nil {
			t := x.Template
			return output.print(printer, out, x, []*unstructured.Unstructured{namedObject(t.APIVersion, t.Kind, t.Namespace, t.Name)})
		}
		color := false
		if f, ok := out.(*os.File); ok {
			color = term.IsTerminal(int(f.Fd()))
		}
		return explain.Text(out, x, explain.TextOptions{Now: time.Now(), Color: color})
	}
}
