package namespacesync

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/workwriter"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// desiredWork is the Work for ns in cluster: the namespace with the
// cluster's overrides applied, owned by the namespace so that it goes with
// it.
func (r *Reconciler) desiredWork(ctx context.Context, ns *corev1.Namespace, cluster *clusterv1alpha1.Cluster) (*workwriter.Desired, error) {
	obj, err := namespaceObject(ns)
	if err != nil {
		return nil, fmt.Errorf("namespace %s: %w", ns.Name, err)
	}
	applied := ""
	if r.opts.Overrides != nil {
		if applied, err = r.opts.Overrides.ApplyClusterOverrides(ctx, obj, cluster); err != nil {
			return nil, fmt.Errorf("namespace %s: cluster %s: apply cluster overrides: %w", ns.Name, cluster.Name, err)
		}
	}
	d := &workwriter.Desired{
		Cluster:    cluster.Name,
		Namespace:  names.ExecutionSpace(cluster.Name),
		Name:       names.WorkName("Namespace", ns.Name, ""),
		FlagsUnset: true,
		Manifest:   obj,
		Owned:      []string{names.AppliedClusterOverridesAnnotation},
		Controller: metav1.NewControllerRef(ns, corev1.SchemeGroupVersion.WithKind("Namespace")),
	}
	if applied != "" {
		d.Annotations = map[string]string{names.AppliedClusterOverridesAnnotation: applied}
	}
	if err := workwriter.PrepareManifest(obj, d.Namespace, d.Name); err != nil {
		return nil, fmt.Errorf("namespace %s: %w", ns.Name, err)
	}
	return d, nil
}

// namespaceObject is ns as an unstructured v1 Namespace.
func namespaceObject(ns *corev1.Namespace) (*unstructured.Unstructured, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ns.DeepCopy())
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{Object: content}
	obj.SetAPIVersion("v1")
	obj.SetKind("Namespace")
	return obj, nil
}
