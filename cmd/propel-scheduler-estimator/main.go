// Command propel-scheduler-estimator answers the scheduler's estimator
// calls for one member cluster from its Nodes and Pods, a drop-in for
// karmada-scheduler-estimator (same gRPC interface, port and main flags).
// Run one per member, behind the Service the scheduler resolves
// (<--scheduler-estimator-service-prefix>-<cluster>).
package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/propel-mc/propel/pkg/commandline"
	"github.com/propel-mc/propel/pkg/estimatorserver"
)

func main() {
	opts := estimatorserver.NewOptions()
	opts.AddFlags(pflag.CommandLine)
	logging := commandline.AddLoggingFlags(pflag.CommandLine)
	pflag.Parse()
	if err := logging.Apply(); err != nil {
		fmt.Fprintln(os.Stderr, "propel-scheduler-estimator:", err)
		os.Exit(2)
	}
	err := estimatorserver.Run(ctrl.SetupSignalHandler(), opts)
	commandline.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "propel-scheduler-estimator:", err)
		os.Exit(1)
	}
}
