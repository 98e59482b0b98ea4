// Package syncer is Karmada's federated-resource-quota-sync-controller
// ("federatedResourceQuotaSync"): each FederatedResourceQuota's static
// assignments become ResourceQuotas in the named member clusters, one Work
// per cluster, and Works of clusters no longer assigned are removed.
package syncer
