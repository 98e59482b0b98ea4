// Command propel-scheduler runs Propel's scheduler as its own process, a
// drop-in for karmada-scheduler: it accepts karmada-scheduler's command
// line and holds its Lease. Run the controller manager with
// --controllers=*,-scheduler next to it.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/propel-mc/propel/pkg/commandline"
	"github.com/propel-mc/propel/pkg/schedulermanager"
)

func main() {
	opts := schedulermanager.NewOptions()
	opts.AddFlags(pflag.CommandLine)
	logging := commandline.AddLoggingFlags(pflag.CommandLine)
	pflag.Parse()
	if err := logging.Apply(); err != nil {
		fmt.Fprintln(os.Stderr, "propel-scheduler:", err)
		os.Exit(2)
	}
	err := schedulermanager.Run(ctrl.SetupSignalHandler(), opts)
	commandline.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "propel-scheduler:", err)
		os.Exit(1)
	}
}
