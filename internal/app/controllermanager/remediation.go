package controllermanager

import (
	"context"

	"github.com/propel-mc/propel/internal/controllers/rebalancer"
	"github.com/propel-mc/propel/internal/controllers/remedy"
)

// setupWorkloadRebalancer starts the WorkloadRebalancer controller
// (Karmada's "workloadRebalancer"; no gate).
func setupWorkloadRebalancer(_ context.Context, c *Context) error {
	return rebalancer.New(rebalancer.Deps{Client: c.Manager.GetClient()}).SetupWithManager(c.Manager)
}

// setupRemedy starts the Remedy controller (Karmada's "remedy"; no gate).
func setupRemedy(_ context.Context, c *Context) error {
	return remedy.New(remedy.Deps{Client: c.Manager.GetClient()}).SetupWithManager(c.Manager)
}
