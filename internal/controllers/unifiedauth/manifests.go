package unifiedauth

import (
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/workwriter"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// systemLabels mark both member objects as Karmada's own.
func systemLabels() map[string]string { return map[string]string{names.SystemLabel: names.TrueValue} }

// impersonatorClusterRole is the member ClusterRole granting rules.
func impersonatorClusterRole(rules []rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: names.ImpersonatorName, Labels: systemLabels()},
		Rules:      rules,
	}
}

// impersonatorClusterRoleBinding binds the impersonator ClusterRole to the
// impersonator's ServiceAccount, which lives in the namespace of the
// Cluster's impersonator Secret on the member.
func impersonatorClusterRoleBinding(serviceAccountNamespace string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: names.ImpersonatorName, Labels: systemLabels()},
		Subjects: []rbacv1.Subject{{
			Kind: rbacv1.ServiceAccountKind, Namespace: serviceAccountNamespace, Name: names.ImpersonatorName,
		}},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: names.ImpersonatorName},
	}
}

// desiredWorks are the Works of cluster's impersonation config: the
// ClusterRole's first (a binding to a missing role grants nothing), then
// the binding's. cluster must have an impersonator Secret.
func desiredWorks(cluster *clusterv1alpha1.Cluster, rules []rbacv1.PolicyRule) ([]*workwriter.Desired, error) {
	objs := []runtime.Object{
		impersonatorClusterRole(rules),
		impersonatorClusterRoleBinding(cluster.Spec.ImpersonatorSecretRef.Namespace),
	}
	out := make([]*workwriter.Desired, 0, len(objs))
	for _, obj := range objs {
		d, err := desiredWork(cluster, obj)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// desiredWork is the Work carrying obj, a cluster-scoped member object,
// to cluster: named as Karmada names a template's Work and controlled by
// the Cluster.
func desiredWork(cluster *clusterv1alpha1.Cluster, obj runtime.Object) (*workwriter.Desired, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("convert %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, err)
	}
	manifest := &unstructured.Unstructured{Object: content}
	d := &workwriter.Desired{
		Cluster: cluster.Name, Namespace: names.ExecutionSpace(cluster.Name),
		Name:       names.WorkName(manifest.GetKind(), manifest.GetName(), ""),
		Manifest:   manifest,
		Controller: metav1.NewControllerRef(cluster, clusterv1alpha1.GroupVersion.WithKind("Cluster")),
	}
	if err := workwriter.PrepareManifest(manifest, d.Namespace, d.Name); err != nil {
		return nil, fmt.Errorf("%s %s: %w", manifest.GetKind(), manifest.GetName(), err)
	}
	return d, nil
}
