// Command propel-scheduler-estimator answers the scheduler's estimator
// calls for one member cluster from its Nodes and Pods, a drop-in for
// karmada-scheduler-estimator (same gRPC interface, port and main flags).
// Run one per member, behind the Service the scheduler resolves
// (<--scheduler-estimator-service-prefix>-<cluster>).
package main

import (
	"context"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/scheduling/estimatorserver"
)

func main() {
	opts := estimatorserver.NewOptions()
	commandline.Exec("propel-scheduler-estimator", opts.AddFlags, opts.FeatureGates,
		func(ctx context.Context) error { return estimatorserver.Run(ctx, opts) })
}
