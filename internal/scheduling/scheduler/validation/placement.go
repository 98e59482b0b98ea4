package validation

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/affinity"
	"github.com/propel-mc/propel/internal/shared/names"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// PlacementPath is the field path of a binding's placement.
var PlacementPath = field.NewPath("spec", "placement")

// Placement validates p and returns every problem found.
func Placement(p *policyv1alpha1.Placement) field.ErrorList {
	if p == nil {
		return nil
	}
	var errs field.ErrorList
	if p.ClusterAffinity != nil && len(p.ClusterAffinities) > 0 {
		errs = append(errs, field.Invalid(PlacementPath.Child("clusterAffinities"), len(p.ClusterAffinities),
			"clusterAffinity and clusterAffinities are mutually exclusive"))
	}
	errs = append(errs, clusterAffinity(p.ClusterAffinity, PlacementPath.Child("clusterAffinity"))...)
	for i := range p.ClusterAffinities {
		term := &p.ClusterAffinities[i]
		path := PlacementPath.Child("clusterAffinities").Index(i)
		errs = append(errs, clusterAffinity(&term.ClusterAffinity, path)...)
		for j := range term.OverflowAffinities {
			errs = append(errs, clusterAffinity(&term.OverflowAffinities[j].ClusterAffinity, path.Child("overflowAffinities").Index(j))...)
		}
	}
	errs = append(errs, spreadConstraints(p.SpreadConstraints, PlacementPath.Child("spreadConstraints"))...)
	if rs := p.ReplicaScheduling; rs != nil && rs.WeightPreference != nil {
		path := PlacementPath.Child("replicaScheduling", "weightPreference", "staticWeightList")
		for i := range rs.WeightPreference.StaticWeightList {
			errs = append(errs, clusterAffinity(&rs.WeightPreference.StaticWeightList[i].TargetCluster, path.Index(i).Child("targetCluster"))...)
		}
	}
	return errs
}

// clusterAffinity checks that a's selectors parse and that its field
// selector only uses provider, region and zone.
func clusterAffinity(a *policyv1alpha1.ClusterAffinity, path *field.Path) field.ErrorList {
	if a == nil {
		return nil
	}
	var errs field.ErrorList
	if a.LabelSelector != nil {
		if _, err := affinity.Compile(&policyv1alpha1.ClusterAffinity{LabelSelector: a.LabelSelector}); err != nil {
			errs = append(errs, field.Invalid(path.Child("labelSelector"), metav1.FormatLabelSelector(a.LabelSelector), err.Error()))
		}
	}
	if a.FieldSelector != nil {
		for i, req := range a.FieldSelector.MatchExpressions {
			errs = append(errs, fieldRequirement(req, path.Child("fieldSelector", "matchExpressions").Index(i))...)
		}
	}
	return errs
}

var zoneOperators = map[corev1.NodeSelectorOperator]bool{
	corev1.NodeSelectorOpIn: true, corev1.NodeSelectorOpNotIn: true,
	corev1.NodeSelectorOpExists: true, corev1.NodeSelectorOpDoesNotExist: true,
}

func fieldRequirement(req corev1.NodeSelectorRequirement, path *field.Path) field.ErrorList {
	switch req.Key {
	case names.ClusterFieldZone:
		if !zoneOperators[req.Operator] {
			return field.ErrorList{field.NotSupported(path.Child("operator"), req.Operator,
				[]corev1.NodeSelectorOperator{corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist})}
		}
		if (req.Operator == corev1.NodeSelectorOpIn || req.Operator == corev1.NodeSelectorOpNotIn) && len(req.Values) == 0 {
			return field.ErrorList{field.Required(path.Child("values"), fmt.Sprintf("operator %s needs values", req.Operator))}
		}
		return nil
	case names.ClusterFieldProvider, names.ClusterFieldRegion:
		sel := &policyv1alpha1.ClusterAffinity{FieldSelector: &policyv1alpha1.FieldSelector{MatchExpressions: []corev1.NodeSelectorRequirement{req}}}
		if _, err := affinity.Compile(sel); err != nil {
			return field.ErrorList{field.Invalid(path, req.Key, err.Error())}
		}
		return nil
	default:
		return field.ErrorList{field.NotSupported(path.Child("key"), req.Key,
			[]string{names.ClusterFieldProvider, names.ClusterFieldRegion, names.ClusterFieldZone})}
	}
}
