package controllermanager

import (
	"context"

	"github.com/propel-mc/propel/pkg/features"
	"github.com/propel-mc/propel/pkg/federatedquota/enforcement"
	"github.com/propel-mc/propel/pkg/federatedquota/status"
	"github.com/propel-mc/propel/pkg/federatedquota/syncer"
)

// setupFederatedResourceQuotaSync starts Karmada's
// "federatedResourceQuotaSync": static assignments to member
// ResourceQuotas through Works (no gate).
func setupFederatedResourceQuotaSync(_ context.Context, c *Context) error {
	return syncer.New().SetupWithManager(c.Manager)
}

// setupFederatedResourceQuotaStatus starts Karmada's
// "federatedResourceQuotaStatus" (no gate; with FederatedQuotaEnforcement
// on it writes only aggregatedStatus).
func setupFederatedResourceQuotaStatus(_ context.Context, c *Context) error {
	r := &status.Reconciler{Enforcement: c.Options.FeatureGates.Enabled(features.FederatedQuotaEnforcement)}
	return r.SetupWithManager(c.Manager)
}

// setupFederatedResourceQuotaEnforcement starts Karmada's
// "federatedResourceQuotaEnforcement" when the FederatedQuotaEnforcement
// gate is on (the scheduler then also checks placements against the
// quotas: schedulermanager.SchedulerOptions).
func setupFederatedResourceQuotaEnforcement(_ context.Context, c *Context) error {
	if !c.Options.FeatureGates.Enabled(features.FederatedQuotaEnforcement) {
		return nil
	}
	r := &enforcement.Reconciler{SyncPeriod: c.Options.FederatedResourceQuotaSyncPeriod}
	return r.SetupWithManager(c.Manager)
}
