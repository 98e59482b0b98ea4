package native_test

import (
	"fmt"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// Unchanged since the typed implementation: production code serves as
// the reference (export_test.go).
var (
	serviceImportDependencies = native.ServiceImportDependencies
)

func dependencyHandlers() map[schema.GroupVersionKind]dependencyFunc {
	template := templateDependencies("spec", "template")
	return map[schema.GroupVersionKind]dependencyFunc{
		deploymentGVK:    template,
		replicaSetGVK:    template,
		daemonSetGVK:     template,
		jobGVK:           template,
		cronJobGVK:       templateDependencies("spec", "jobTemplate", "spec", "template"),
		statefulSetGVK:   statefulSetDependencies,
		podGVK:           podDependencies,
		ingressGVK:       ingressDependencies,
		serviceImportGVK: serviceImportDependencies,
	}
}

// templateDependencies lists what the pods of the template at path need,
// in the workload's namespace.
func templateDependencies(path ...string) dependencyFunc {
	return func(obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
		var tmpl corev1.PodTemplateSpec
		if err := fromNested(obj, &tmpl, path...); err != nil {
			return nil, err
		}
		return native.PodDependencies(&tmpl, obj.GetNamespace()), nil
	}
}

func podDependencies(obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	var tmpl corev1.PodTemplateSpec
	if err := fromNested(obj, &tmpl.Spec, "spec"); err != nil {
		return nil, err
	}
	return native.PodDependencies(&tmpl, obj.GetNamespace()), nil
}

// claimTemplate is the part of a StatefulSet volume claim template read.
type claimTemplate struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
}

// statefulSetDependencies drops the claims the StatefulSet creates itself
// from its volumeClaimTemplates.
func statefulSetDependencies(obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	var spec struct {
		Template             corev1.PodTemplateSpec `json:"template"`
		VolumeClaimTemplates []claimTemplate        `json:"volumeClaimTemplates"`
	}
	if err := fromNested(obj, &spec, "spec"); err != nil {
		return nil, err
	}
	deps := slices.DeleteFunc(native.PodDependencies(&spec.Template, obj.GetNamespace()), func(d configv1alpha1.DependentObjectReference) bool {
		return d.Kind == kindPersistentVolumeClaim && slices.ContainsFunc(spec.VolumeClaimTemplates,
			func(t claimTemplate) bool { return t.Metadata.Name == d.Name })
	})
	if len(deps) == 0 {
		return nil, nil
	}
	return deps, nil
}

// ingressDependencies is one Secret per TLS entry, not deduplicated; an
// entry without secretName fails validation, as in Karmada.
func ingressDependencies(obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	var spec struct {
		TLS []struct {
			SecretName string `json:"secretName"`
		} `json:"tls"`
	}
	if err := fromNested(obj, &spec, "spec"); err != nil {
		return nil, err
	}
	var deps []configv1alpha1.DependentObjectReference
	for _, tls := range spec.TLS {
		deps = append(deps, configv1alpha1.DependentObjectReference{
			APIVersion: corev1.SchemeGroupVersion.String(),
			Kind:       kindSecret,
			Namespace:  obj.GetNamespace(),
			Name:       tls.SecretName,
		})
	}
	return deps, nil
}

// ValidateDependencies checks dependency references as Karmada does for
// every layer's answer: apiVersion and kind are required, and a name or a
// valid label selector. All problems are reported together.
func ValidateDependencies(deps []configv1alpha1.DependentObjectReference) error {
	var errs field.ErrorList
	for i := range deps {
		dep := &deps[i]
		path := field.NewPath("dependencies").Index(i)
		if dep.APIVersion == "" {
			errs = append(errs, field.Required(path.Child("apiVersion"), "apiVersion is empty"))
		}
		if dep.Kind == "" {
			errs = append(errs, field.Required(path.Child("kind"), "kind is empty"))
		}
		if dep.Name == "" && dep.LabelSelector == nil {
			errs = append(errs, field.Required(path.Child("name"), "name and labelSelector cannot be empty at the same time"))
		}
		errs = append(errs, metav1validation.ValidateLabelSelector(dep.LabelSelector,
			metav1validation.LabelSelectorValidationOptions{}, path.Child("labelSelector"))...)
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("invalid dependencies: %w", errs.ToAggregate())
}

// Kinds of the objects a pod refers to.
const (
	kindSecret                = "Secret"
	kindPersistentVolumeClaim = "PersistentVolumeClaim"
)
