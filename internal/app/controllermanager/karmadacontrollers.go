package controllermanager

import "slices"

// karmadaControllers are the names karmada-controller-manager's
// --controllers accepts (Karmada v1.16 line). Propel accepts all of them;
// those it has no controller for are logged at start-up as having no
// effect when named (see inactiveControllers). Kept as a plain table,
// apart from the registry, so the list is easy to compare with Karmada's.
var karmadaControllers = []string{
	"cluster", "clusterStatus", "binding", "bindingStatus", "execution", "workStatus", "namespace",
	"serviceExport", "endpointSlice", "serviceImport", "unifiedAuth",
	"federatedResourceQuotaSync", "federatedResourceQuotaStatus", "federatedResourceQuotaEnforcement",
	"gracefulEviction", "applicationFailover",
	"federatedHorizontalPodAutoscaler", "cronFederatedHorizontalPodAutoscaler",
	"hpaScaleTargetMarker", "deploymentReplicasSyncer",
	"multiclusterservice", "endpointsliceCollect", "endpointsliceDispatch",
	"remedy", "workloadRebalancer", "agentcsrapproving", "clustertaintpolicy",
}

// isKarmadaController reports whether name is one of karmadaControllers.
func isKarmadaController(name string) bool { return slices.Contains(karmadaControllers, name) }

// inactiveControllers lists the Karmada controllers that list names
// explicitly (not "-name") and that Propel does not implement.
func inactiveControllers(list []string, implemented func(string) bool) []string {
	var out []string
	for _, entry := range list {
		if entry == "*" || entry[0] == '-' || implemented(entry) || !isKarmadaController(entry) {
			continue
		}
		if !slices.Contains(out, entry) {
			out = append(out, entry)
		}
	}
	return out
}
