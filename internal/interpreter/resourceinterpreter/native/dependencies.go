package native

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/shared/names"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// templateDependencies lists what the pods of the template at path need,
// in the workload's namespace.
func templateDependencies(path ...string) dependencyFunc {
	specPath := append(path[:len(path):len(path)], "spec")
	return func(obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
		spec, err := mapAt(obj.Object, specPath...)
		if err != nil {
			return nil, err
		}
		deps, err := podDependenciesFrom(spec, obj.GetNamespace())
		return deps, at(err, specPath...)
	}
}

func podDependencies(obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	spec, err := mapAt(obj.Object, "spec")
	if err != nil {
		return nil, err
	}
	deps, err := podDependenciesFrom(spec, obj.GetNamespace())
	return deps, at(err, "spec")
}

// statefulSetDependencies drops the claims the StatefulSet creates itself
// from its volumeClaimTemplates.
func statefulSetDependencies(obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	spec, err := mapAt(obj.Object, "spec")
	if err != nil {
		return nil, err
	}
	podSpec, err := mapAt(spec, "template", "spec")
	if err != nil {
		return nil, at(err, "spec")
	}
	templates, err := asSlice(spec["volumeClaimTemplates"])
	if err != nil {
		return nil, at(err, "spec", "volumeClaimTemplates")
	}
	claims := make([]string, 0, len(templates))
	for _, t := range templates {
		m, err := asMap(t)
		if err == nil {
			m, err = mapAt(m, "metadata")
		}
		var name string
		if err == nil {
			name, err = stringField(m, "name")
		}
		if err != nil {
			return nil, at(err, "spec", "volumeClaimTemplates")
		}
		claims = append(claims, name)
	}
	deps, err := podDependenciesFrom(podSpec, obj.GetNamespace())
	if err != nil {
		return nil, at(err, templatePodSpecPath...)
	}
	deps = slices.DeleteFunc(deps, func(d configv1alpha1.DependentObjectReference) bool {
		return d.Kind == kindPersistentVolumeClaim && slices.Contains(claims, d.Name)
	})
	if len(deps) == 0 {
		return nil, nil
	}
	return deps, nil
}

// ingressDependencies is one Secret per TLS entry, not deduplicated; an
// entry without secretName fails validation, as in Karmada.
func ingressDependencies(obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	spec, err := mapAt(obj.Object, "spec")
	if err != nil {
		return nil, err
	}
	tls, err := asSlice(spec["tls"])
	if err != nil {
		return nil, at(err, "spec", "tls")
	}
	var deps []configv1alpha1.DependentObjectReference
	for _, entry := range tls {
		m, err := asMap(entry)
		var name string
		if err == nil {
			name, err = stringField(m, "secretName")
		}
		if err != nil {
			return nil, at(err, "spec", "tls")
		}
		deps = append(deps, configv1alpha1.DependentObjectReference{
			APIVersion: corev1.SchemeGroupVersion.String(),
			Kind:       kindSecret,
			Namespace:  obj.GetNamespace(),
			Name:       name,
		})
	}
	return deps, nil
}

// serviceImportDependencies is the derived Service and its EndpointSlices.
func serviceImportDependencies(obj *unstructured.Unstructured) ([]configv1alpha1.DependentObjectReference, error) {
	derived := names.DerivedServiceName(obj.GetName())
	return []configv1alpha1.DependentObjectReference{{
		APIVersion: corev1.SchemeGroupVersion.String(),
		Kind:       "Service",
		Namespace:  obj.GetNamespace(),
		Name:       derived,
	}, {
		APIVersion: discoveryv1.SchemeGroupVersion.String(),
		Kind:       "EndpointSlice",
		Namespace:  obj.GetNamespace(),
		LabelSelector: &metav1.LabelSelector{
			MatchLabels: map[string]string{discoveryv1.LabelServiceName: derived},
		},
	}}, nil
}
