// Command propel-scheduler runs Propel's scheduler as its own process, a
// drop-in for karmada-scheduler: it accepts karmada-scheduler's command
// line and holds its Lease (karmada-scheduler), which the controller
// manager's in-process scheduler also takes when --controllers names it.
package main

import (
	"context"
	"os"

	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/app/schedulermanager"
)

func main() {
	opts := schedulermanager.NewOptions()
	fs := pflag.NewFlagSet("propel-scheduler", pflag.ContinueOnError)
	opts.AddFlags(fs)
	os.Exit(commandline.Binary{
		Name: "propel-scheduler", Flags: fs, Gates: opts.FeatureGates,
		Run: func(ctx context.Context) error { return schedulermanager.Run(ctx, opts) },
		Out: os.Stdout, Err: os.Stderr,
	}.Main(ctrl.SetupSignalHandler(), os.Args[1:]))
}
