package controllermanager

import (
	"context"

	"github.com/propel-mc/propel/internal/app/controllermanager/recorder"
	"github.com/propel-mc/propel/internal/controllers/agentcsr"
	"github.com/propel-mc/propel/internal/controllers/unifiedauth"
	"github.com/propel-mc/propel/internal/shared/names"
)

// setupUnifiedAuth starts the unified-auth controller (Karmada's
// "unifiedAuth"; no gate).
func setupUnifiedAuth(_ context.Context, c *Context) error {
	return unifiedauth.New(unifiedauth.Deps{
		Client: c.Manager.GetClient(), APIReader: c.Manager.GetAPIReader(),
		Recorder: recorder.For(c.Manager, names.UnifiedAuthControllerName),
	}, unifiedauth.Options{}).SetupWithManager(c.Manager)
}

// setupAgentCSRApproving starts the agent CSR approving controller
// (Karmada's "agentcsrapproving"; no gate).
func setupAgentCSRApproving(_ context.Context, c *Context) error {
	return agentcsr.New(agentcsr.Deps{Client: c.Manager.GetClient()}, agentcsr.Options{}).SetupWithManager(c.Manager)
}
