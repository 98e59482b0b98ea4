// Command propel-controller-manager runs Propel: the resource detector and
// the propagation controllers against a Karmada control plane, and the
// scheduler too when --controllers names it. It accepts
// karmada-controller-manager's command line unchanged.
package main

import (
	"context"
	"os"

	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/app/controllermanager"
)

func main() {
	opts := controllermanager.NewOptions()
	fs := pflag.NewFlagSet("propel-controller-manager", pflag.ContinueOnError)
	opts.AddFlags(fs)
	os.Exit(commandline.Binary{
		Name: "propel-controller-manager", Flags: fs, Gates: opts.FeatureGates,
		Run: func(ctx context.Context) error { return controllermanager.Run(ctx, opts) },
		Out: os.Stdout, Err: os.Stderr,
	}.Main(ctrl.SetupSignalHandler(), os.Args[1:]))
}
