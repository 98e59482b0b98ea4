package templatecontroller

import (
	"testing"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

func TestWebhookDefaults(t *testing.T) {
	spec := &policyv1alpha1.PropagationSpec{Placement: policyv1alpha1.Placement{
		ReplicaScheduling: &policyv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided},
		SpreadConstraints: []policyv1alpha1.SpreadConstraint{{MaxGroups: 2}},
	}}
	got := withWebhookDefaults(spec)
	if got.Placement.ReplicaScheduling.ReplicaDivisionPreference != policyv1alpha1.ReplicaDivisionPreferenceWeighted {
		t.Errorf("Divided without preference not defaulted to Weighted")
	}
	if sc := got.Placement.SpreadConstraints[0]; sc.SpreadByField != policyv1alpha1.SpreadByFieldCluster || sc.MinGroups != 1 || sc.MaxGroups != 2 {
		t.Errorf("spread constraint defaults: %+v", sc)
	}
	if spec.Placement.ReplicaScheduling.ReplicaDivisionPreference != "" {
		t.Error("defaulting mutated the policy")
	}
}
