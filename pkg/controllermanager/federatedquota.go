package controllermanager

import (
	"context"

	"github.com/propel-mc/propel/pkg/federatedquota/status"
	"github.com/propel-mc/propel/pkg/federatedquota/syncer"
	"github.com/propel-mc/propel/pkg/features"
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
