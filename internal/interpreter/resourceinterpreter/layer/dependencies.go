package layer

import (
	"fmt"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// MaxDependencies is the most references a GetDependencies answer may
// have, from any layer. Workloads name a handful of ConfigMaps, Secrets
// and claims; 512 leaves room for generated ones while bounding what one
// answer makes the dependencies distributor create and watch.
const MaxDependencies = 512

// MaxReportedDependencyErrors is the most problems the error of an
// invalid dependency list spells out; the rest are counted. An answer of
// many bad entries then costs one short message, not one message each.
const MaxReportedDependencyErrors = 10

// ErrTooManyDependencies is wrapped by the error of an answer with more
// than MaxDependencies references.
var ErrTooManyDependencies = fmt.Errorf("an answer may name at most %d dependencies", MaxDependencies)

// CheckDependencyCount rejects n references when there are more than
// MaxDependencies. Layers call it before decoding or validating an
// answer's entries, so that the work they do is bounded.
func CheckDependencyCount(n int) error {
	if n > MaxDependencies {
		return fmt.Errorf("invalid dependencies: %d references: %w", n, ErrTooManyDependencies)
	}
	return nil
}

// ValidateDependencies checks dependency references as Karmada does for
// every layer's answer: apiVersion and kind are required, and a name or a
// valid label selector. Beyond Karmada, the list may have at most
// MaxDependencies entries, and the error names the first
// MaxReportedDependencyErrors problems and counts the others. The work is
// linear in the size of the list.
func ValidateDependencies(deps []configv1alpha1.DependentObjectReference) error {
	if err := CheckDependencyCount(len(deps)); err != nil {
		return err
	}
	var v dependencyErrors
	for i := range deps {
		dep := &deps[i]
		if dep.APIVersion != "" && dep.Kind != "" && dep.Name != "" && dep.LabelSelector == nil {
			continue // valid; building the field path would cost allocations
		}
		path := field.NewPath("dependencies").Index(i)
		if dep.APIVersion == "" {
			v.add(field.Required(path.Child("apiVersion"), "apiVersion is empty"))
		}
		if dep.Kind == "" {
			v.add(field.Required(path.Child("kind"), "kind is empty"))
		}
		if dep.Name == "" && dep.LabelSelector == nil {
			v.add(field.Required(path.Child("name"), "name and labelSelector cannot be empty at the same time"))
		}
		v.add(metav1validation.ValidateLabelSelector(dep.LabelSelector,
			metav1validation.LabelSelectorValidationOptions{}, path.Child("labelSelector"))...)
	}
	return v.err()
}

// dependencyErrors keeps the first MaxReportedDependencyErrors problems
// and counts the rest.
type dependencyErrors struct {
	first field.ErrorList
	more  int
}

func (v *dependencyErrors) add(errs ...*field.Error) {
	for _, e := range errs {
		if len(v.first) < MaxReportedDependencyErrors {
			v.first = append(v.first, e)
		} else {
			v.more++
		}
	}
}

func (v *dependencyErrors) err() error {
	switch {
	case len(v.first) == 0:
		return nil
	case v.more == 0:
		return fmt.Errorf("invalid dependencies: %w", v.first.ToAggregate())
	}
	return fmt.Errorf("invalid dependencies: %w and %d more", v.first.ToAggregate(), v.more)
}
