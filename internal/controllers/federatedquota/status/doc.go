// Package status is Karmada's federated-resource-quota-status-controller
// ("federatedResourceQuotaStatus"): it collects the member ResourceQuota
// statuses the Works of a FederatedResourceQuota reflect into
// status.aggregatedStatus and, with FederatedQuotaEnforcement off, sets
// status.overall and status.overallUsed from them (with the gate on those
// two fields belong to the enforcement controller).
package status
