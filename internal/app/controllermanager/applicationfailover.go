package controllermanager

import (
	"context"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/controllers/failover/application"
)

// setupApplicationFailover starts the RB and CRB application failover
// controllers (Karmada's "applicationFailover"). As in Karmada they run
// whatever the Failover gate says; GracefulEviction and
// StatefulFailoverInjection shape the tasks they write.
func setupApplicationFailover(_ context.Context, c *Context) error {
	return application.SetupWithManager(c.Manager, application.Deps{Interpreter: c.Interpreter}, application.Options{
		GracefulEviction:  c.Options.FeatureGates.Enabled(commandline.GracefulEviction),
		StatePreservation: c.Options.FeatureGates.Enabled(commandline.StatefulFailoverInjection),
	})
}
