// Command propel-controller-manager runs Propel: the resource detector and
// the propagation controllers against a Karmada control plane, and the
// scheduler too when --controllers names it. It accepts
// karmada-controller-manager's command line unchanged.
package main

import (
	"context"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/app/controllermanager"
)

func main() {
	opts := controllermanager.NewOptions()
	commandline.Exec("propel-controller-manager", opts.AddFlags, opts.FeatureGates,
		func(ctx context.Context) error { return controllermanager.Run(ctx, opts) })
}
