// Command propel-scheduler-estimator answers the scheduler's estimator
// calls for one member cluster from its Nodes and Pods, a drop-in for
// karmada-scheduler-estimator (same gRPC interface, port and main flags).
// Run one per member, behind the Service the scheduler resolves
// (<--scheduler-estimator-service-prefix>-<cluster>).
package main

import (
	"context"
	"os"

	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/scheduling/estimatorserver"
)

func main() {
	opts := estimatorserver.NewOptions()
	fs := pflag.NewFlagSet("propel-scheduler-estimator", pflag.ContinueOnError)
	opts.AddFlags(fs)
	os.Exit(commandline.Binary{
		Name: "propel-scheduler-estimator", Flags: fs, Gates: opts.FeatureGates,
		Run: func(ctx context.Context) error { return estimatorserver.Run(ctx, opts) },
		Out: os.Stdout, Err: os.Stderr,
	}.Main(ctrl.SetupSignalHandler(), os.Args[1:]))
}
