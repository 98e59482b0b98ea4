package controllermanager

import (
	"context"

	"github.com/propel-mc/propel/pkg/autoscaling/cronfederatedhpa"
)

// setupCronFederatedHPA starts Karmada's
// "cronFederatedHorizontalPodAutoscaler" (no gate).
func setupCronFederatedHPA(_ context.Context, c *Context) error {
	return cronfederatedhpa.New().SetupWithManager(c.Manager)
}
