// Command propel-controller-manager runs Propel: the resource detector, the
// scheduler and the propagation controllers against a Karmada control plane.
// It accepts karmada-controller-manager's command line unchanged.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/propel-mc/propel/pkg/commandline"
	"github.com/propel-mc/propel/pkg/controllermanager"
)

func main() {
	opts := controllermanager.NewOptions()
	opts.AddFlags(pflag.CommandLine)
	logging := commandline.AddLoggingFlags(pflag.CommandLine)
	pflag.Parse()
	if err := logging.Apply(); err != nil {
		fmt.Fprintln(os.Stderr, "propel-controller-manager:", err)
		os.Exit(2)
	}
	err := controllermanager.Run(ctrl.SetupSignalHandler(), opts)
	commandline.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "propel-controller-manager:", err)
		os.Exit(1)
	}
}
