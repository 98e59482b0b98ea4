// Command propelctl is Propel's command-line tool: registering member
// clusters (join, unjoin), testing interpreter customizations (interpret)
// and running a local multi-cluster environment (local-up, local-down).
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	root := &cobra.Command{
		Use:           "propelctl",
		Short:         "Propel's command-line tool",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newJoinCommand(), newUnjoinCommand(), newInterpretCommand(), newLocalUpCommand(), newLocalDownCommand(), newDemoCommand(), newExplainCommand())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "propelctl:", err)
		os.Exit(1)
	}
}
