package apis

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestSchemeServesEveryKarmadaKind pins the kinds each API package registers,
// so a change to how the packages build their schemes cannot drop one.
func TestSchemeServesEveryKarmadaKind(t *testing.T) {
	kinds := map[schema.GroupVersion][]string{
		{Group: "apps.karmada.io", Version: "v1alpha1"}:    {"WorkloadRebalancer", "WorkloadRebalancerList"},
		{Group: "remedy.karmada.io", Version: "v1alpha1"}:  {"Remedy", "RemedyList"},
		{Group: "cluster.karmada.io", Version: "v1alpha1"}: {"Cluster", "ClusterList"},
		{Group: "config.karmada.io", Version: "v1alpha1"}: {
			"ResourceInterpreterCustomization", "ResourceInterpreterCustomizationList",
			"ResourceInterpreterWebhookConfiguration", "ResourceInterpreterWebhookConfigurationList",
			"ResourceInterpreterContext",
		},
		{Group: "policy.karmada.io", Version: "v1alpha1"}: {
			"PropagationPolicy", "PropagationPolicyList", "ClusterPropagationPolicy", "ClusterPropagationPolicyList",
			"OverridePolicy", "OverridePolicyList", "ClusterOverridePolicy", "ClusterOverridePolicyList",
		},
		{Group: "work.karmada.io", Version: "v1alpha1"}: {"Work", "WorkList"},
		{Group: "autoscaling.karmada.io", Version: "v1alpha1"}: {
			"FederatedHPA", "FederatedHPAList", "CronFederatedHPA", "CronFederatedHPAList",
		},
		{Group: "networking.karmada.io", Version: "v1alpha1"}: {"MultiClusterService", "MultiClusterServiceList"},
		{Group: "multicluster.x-k8s.io", Version: "v1alpha1"}: {
			"ServiceExport", "ServiceExportList", "ServiceImport", "ServiceImportList",
		},
		{Group: "work.karmada.io", Version: "v1alpha2"}: {
			"ResourceBinding", "ResourceBindingList", "ClusterResourceBinding", "ClusterResourceBindingList",
		},
	}
	for gv, names := range kinds {
		// The meta/v1 option kinds come with every group.
		for _, kind := range append(names, "ListOptions", "GetOptions", "DeleteOptions") {
			gvk := gv.WithKind(kind)
			if !Scheme.Recognizes(gvk) {
				t.Errorf("scheme does not recognize %s", gvk)
			}
		}
	}
}
