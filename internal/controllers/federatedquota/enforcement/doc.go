// Package enforcement is FederatedResourceQuota enforcement (gate
// FederatedQuotaEnforcement): Karmada's
// federated-resource-quota-enforcement-controller
// ("federatedResourceQuotaEnforcement"), which recomputes status.overall
// and status.overallUsed from the namespace's ResourceBindings, and the
// admission check Karmada runs in its ResourceBinding webhook, which
// Propel runs in the scheduler before it writes a new placement (Admitter).
package enforcement
