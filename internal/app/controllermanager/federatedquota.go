package controllermanager

import (
	"context"

	"github.com/propel-mc/propel/internal/app/commandline"
	"github.com/propel-mc/propel/internal/app/controllermanager/recorder"
	"github.com/propel-mc/propel/internal/controllers/federatedquota/enforcement"
	"github.com/propel-mc/propel/internal/controllers/federatedquota/status"
	"github.com/propel-mc/propel/internal/controllers/federatedquota/syncer"
	"github.com/propel-mc/propel/internal/shared/names"
)

// setupFederatedResourceQuotaSync starts Karmada's
// "federatedResourceQuotaSync": static assignments to member
// ResourceQuotas through Works (no gate).
func setupFederatedResourceQuotaSync(_ context.Context, c *Context) error {
	return syncer.New(syncer.Deps{
		Client: c.Manager.GetClient(), APIReader: c.Manager.GetAPIReader(),
		Recorder: recorder.For(c.Manager, names.FederatedResourceQuotaSyncControllerName),
	}).SetupWithManager(c.Manager)
}

// setupFederatedResourceQuotaStatus starts Karmada's
// "federatedResourceQuotaStatus" (no gate; with FederatedQuotaEnforcement
// on it writes only aggregatedStatus).
func setupFederatedResourceQuotaStatus(_ context.Context, c *Context) error {
	return status.New(status.Deps{
		Client:   c.Manager.GetClient(),
		Recorder: recorder.For(c.Manager, names.FederatedResourceQuotaStatusControllerName),
	}, status.Options{Enforcement: c.Options.FeatureGates.Enabled(commandline.FederatedQuotaEnforcement)}).SetupWithManager(c.Manager)
}

// setupFederatedResourceQuotaEnforcement starts Karmada's
// "federatedResourceQuotaEnforcement" when the FederatedQuotaEnforcement
// gate is on (the scheduler then also checks placements against the
// quotas: schedulermanager.SchedulerOptions).
func setupFederatedResourceQuotaEnforcement(_ context.Context, c *Context) error {
	if !c.Options.FeatureGates.Enabled(commandline.FederatedQuotaEnforcement) {
		return nil
	}
	return enforcement.New(enforcement.Deps{
		Client:   c.Manager.GetClient(),
		Recorder: recorder.For(c.Manager, names.FederatedResourceQuotaEnforcementControllerName),
	}, enforcement.Options{SyncPeriod: c.Options.FederatedResourceQuotaSyncPeriod}).SetupWithManager(c.Manager)
}
