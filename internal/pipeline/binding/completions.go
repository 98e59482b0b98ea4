package binding

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/assign"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// jobCompletions divides a Job template's spec.completions across the
// targets with the Webster dispenser, weighted by each target's replicas
// and tie-broken by the template UID, when the binding has replicas, a
// Divided placement, and the template sets spec.completions. It returns
// each cluster's share, or nil when completions are not divided.
func jobCompletions(b *binding, tmpl *unstructured.Unstructured, targets []workv1alpha2.TargetCluster) (map[string]int64, error) {
	if tmpl.GetKind() != "Job" || b.spec.Replicas <= 0 ||
		b.spec.Placement.ReplicaSchedulingType() != policyv1alpha1.ReplicaSchedulingTypeDivided {
		return nil, nil
	}
	completions, found, err := unstructured.NestedInt64(tmpl.Object, "spec", "completions")
	if err != nil {
		return nil, fmt.Errorf("%s: read spec.completions of the Job template: %w", b, err)
	}
	if !found {
		return nil, nil
	}
	parties := make([]assign.Party, len(targets))
	for i, t := range targets {
		parties[i] = assign.Party{Name: t.Name, Weight: int64(t.Replicas)}
	}
	shares := make(map[string]int64, len(targets))
	for _, p := range assign.Webster(int32(completions), parties, assign.TieBreakFor(tmpl.GetUID())) {
		shares[p.Name] = int64(p.Seats)
	}
	return shares, nil
}

// setSpecIntIfPresent overwrites spec.<field> with v only when the field
// is already set; a non-integer field is an error.
func setSpecIntIfPresent(obj *unstructured.Unstructured, field string, v int64) error {
	_, found, err := unstructured.NestedInt64(obj.Object, "spec", field)
	if err != nil || !found {
		return err
	}
	return unstructured.SetNestedField(obj.Object, v, "spec", field)
}
