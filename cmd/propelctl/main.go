// Command propelctl is Propel's command-line tool: registering member
// clusters (join, unjoin), testing interpreter customizations (interpret,
// interpret --replay on live objects), tracing a template's propagation
// (trace), printing versions (version) and running a local multi-cluster
// environment (local-up, local-down, demo). The control plane is reached
// with kubectl's flags (--kubeconfig, --context, -n, --as, --token, ...),
// which every command takes.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func newRootCommand() *cobra.Command {
	cp := newControlPlaneFlags()
	root := &cobra.Command{
		Use:           "propelctl",
		Short:         "Propel's command-line tool",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(*cobra.Command, []string) error {
			return cp.complete()
		},
	}
	cp.addFlags(root.PersistentFlags())
	registerFlagCompletions(root, cp)
	root.AddCommand(newJoinCommand(cp), newUnjoinCommand(cp), newInterpretCommand(cp), newLocalUpCommand(), newLocalDownCommand(), newDemoCommand(),
		newTraceCommand(cp), newExplainCommand(cp), newVersionCommand(cp))
	return root
}

func main() {
	root := newRootCommand()
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "propelctl:", err)
		os.Exit(1)
	}
}
