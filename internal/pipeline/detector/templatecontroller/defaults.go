package templatecontroller

import (
	"k8s.io/utils/ptr"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// withWebhookDefaults returns a copy of spec with the defaults Karmada's
// mutating webhook writes into policies. Propel runs without that webhook
// and applies them when copying a policy into a binding, leaving the user's
// policy object as written (GitOps tools see no drift).
func withWebhookDefaults(spec *policyv1alpha1.PropagationSpec) *policyv1alpha1.PropagationSpec {
	s := spec.DeepCopy()
	if rs := s.Placement.ReplicaScheduling; rs != nil &&
		rs.ReplicaSchedulingType == policyv1alpha1.ReplicaSchedulingTypeDivided && rs.ReplicaDivisionPreference == "" {
		rs.ReplicaDivisionPreference = policyv1alpha1.ReplicaDivisionPreferenceWeighted
	}
	for i := range s.Placement.SpreadConstraints {
		sc := &s.Placement.SpreadConstraints[i]
		if sc.SpreadByField == "" && sc.SpreadByLabel == "" {
			sc.SpreadByField = policyv1alpha1.SpreadByFieldCluster
		}
		if sc.MinGroups == 0 {
			sc.MinGroups = 1
		}
	}
	for _, rs := range s.ResourceSelectors {
		if rs.APIVersion == "multicluster.x-k8s.io/v1alpha1" && rs.Kind == "ServiceImport" {
			s.PropagateDeps = true
		}
	}
	if s.Failover != nil && s.Failover.Application != nil {
		app := s.Failover.Application
		if app.PurgeMode == policyv1alpha1.PurgeModeGracefully && app.GracePeriodSeconds == nil {
			app.GracePeriodSeconds = ptr.To[int32](600)
		}
	}
	return s
}
