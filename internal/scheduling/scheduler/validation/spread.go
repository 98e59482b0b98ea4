package validation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// spreadConstraints applies Karmada's spread-constraint validation:
// spreadByField and spreadByLabel are exclusive, groups are not negative,
// a positive maxGroups is at least minGroups, each field appears once, and
// any spreadByField needs a cluster constraint.
func spreadConstraints(constraints []policyv1alpha1.SpreadConstraint, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[policyv1alpha1.SpreadFieldValue]bool{}
	for i, sc := range constraints {
		p := path.Index(i)
		if sc.SpreadByField != "" && sc.SpreadByLabel != "" {
			errs = append(errs, field.Invalid(p.Child("spreadByLabel"), sc.SpreadByLabel, "spreadByLabel should not co-exist with spreadByField"))
		}
		if sc.MinGroups < 0 {
			errs = append(errs, field.Invalid(p.Child("minGroups"), sc.MinGroups, "must not be negative"))
		}
		if sc.MaxGroups < 0 {
			errs = append(errs, field.Invalid(p.Child("maxGroups"), sc.MaxGroups, "must not be negative"))
		}
		if sc.MaxGroups > 0 && sc.MaxGroups < sc.MinGroups {
			errs = append(errs, field.Invalid(p.Child("maxGroups"), sc.MaxGroups, "maxGroups lower than minGroups is not allowed"))
		}
		if sc.SpreadByField == "" {
			continue
		}
		if seen[sc.SpreadByField] {
			errs = append(errs, field.Duplicate(p.Child("spreadByField"), sc.SpreadByField))
		}
		seen[sc.SpreadByField] = true
	}
	if len(seen) > 0 && !seen[policyv1alpha1.SpreadByFieldCluster] {
		errs = append(errs, field.Required(path, "the cluster spread constraint must be enabled in one of the constraints in case of SpreadByField is enabled"))
	}
	return errs
}
