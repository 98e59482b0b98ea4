package names

// FederatedResourceQuota controllers' names (Karmada's; also the event
// source components) and the labels that tie a quota's Works to it.
const (
	FederatedResourceQuotaSyncControllerName        = "federated-resource-quota-sync-controller"
	FederatedResourceQuotaStatusControllerName      = "federated-resource-quota-status-controller"
	FederatedResourceQuotaEnforcementControllerName = "federated-resource-quota-enforcement-controller"

	// FederatedResourceQuotaNamespaceLabel and FederatedResourceQuotaNameLabel
	// are on every Work the sync controller writes for a quota.
	FederatedResourceQuotaNamespaceLabel = "federatedresourcequota.karmada.io/namespace"
	FederatedResourceQuotaNameLabel      = "federatedresourcequota.karmada.io/name"
)
