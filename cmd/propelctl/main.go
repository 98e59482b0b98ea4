// Command propelctl is Propel's command-line tool: registering member
// clusters (join, unjoin), testing interpreter customizations (interpret,
// interpret --replay on live objects), explaining a template's propagation
// (explain) and running a local multi-cluster environment (local-up,
// local-down, demo).
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "propelctl",
		Short:         "Propel's command-line tool",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newJoinCommand(), newUnjoinCommand(), newInterpretCommand(), newLocalUpCommand(), newLocalDownCommand(), newDemoCommand(), newExplainCommand())
	return root
}

func main() {
	root := newRootCommand()
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "propelctl:", err)
		os.Exit(1)
	}
}
