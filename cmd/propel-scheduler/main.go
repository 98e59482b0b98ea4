// Command propel-scheduler runs Propel's scheduler as its own process, a
// drop-in for karmada-scheduler: it accepts karmada-scheduler's command
// line and holds its Lease (karmada-scheduler), which the controller
// manager's in-process scheduler also takes when --controllers names it.
package main

import (
	"context"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/app/schedulermanager"
)

func main() {
	opts := schedulermanager.NewOptions()
	commandline.Exec("propel-scheduler", opts.AddFlags, opts.FeatureGates,
		func(ctx context.Context) error { return schedulermanager.Run(ctx, opts) })
}
