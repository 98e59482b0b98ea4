package namespacesync

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/pkg/names"
)

// syncWork creates the namespace's Work in cluster's execution namespace,
// or updates it when it differs from what it should be.
func (r *Reconciler) syncWork(ctx context.Context, ns *corev1.Namespace, cluster *clusterv1alpha1.Cluster) error {
	desired, obj, err := r.desiredWork(ctx, ns, cluster)
	if err != nil {
		return err
	}
	existing := &workv1alpha1.Work{}
	err = r.client.Get(ctx, client.ObjectKeyFromObject(desired), existing)
	switch {
	case apierrors.IsNotFound(err):
		return r.createWork(ctx, desired, obj, cluster)
	case err != nil:
		return fmt.Errorf("cluster %s: get work %s/%s: %w", cluster.Name, desired.Namespace, desired.Name, err)
	case !existing.DeletionTimestamp.IsZero():
		return fmt.Errorf("cluster %s: work %s/%s is being deleted", cluster.Name, existing.Namespace, existing.Name)
	}
	manifest, err := finishManifest(obj, existing.Labels[names.WorkPermanentIDLabel])
	if err != nil {
		return err
	}
	desired.Spec.Workload.Manifests = []workv1alpha1.Manifest{manifest}
	updated := mergeWork(existing, desired)
	if same, err := sameWork(existing, updated); err != nil || same {
		return err
	}
	if err := r.client.Update(ctx, updated); err != nil {
		return fmt.Errorf("cluster %s: update work %s/%s: %w", cluster.Name, updated.Namespace, updated.Name, err)
	}
	log.FromContext(ctx).V(1).Info("updated namespace work", "cluster", klog.KObj(cluster), "work", klog.KObj(updated))
	return nil
}

func (r *Reconciler) createWork(ctx context.Context, work *workv1alpha1.Work, obj *unstructured.Unstructured, cluster *clusterv1alpha1.Cluster) error {
	manifest, err := finishManifest(obj, "")
	if err != nil {
		return err
	}
	work.Spec.Workload.Manifests = []workv1alpha1.Manifest{manifest}
	if err := r.client.Create(ctx, work); err != nil {
		return fmt.Errorf("cluster %s: create work %s/%s: %w", cluster.Name, work.Namespace, work.Name, err)
	}
	log.FromContext(ctx).V(1).Info("created namespace work", "cluster", klog.KObj(cluster), "work", klog.KObj(work))
	return nil
}

// sameWork compares what this controller writes: metadata it merges and
// the spec, with manifests compared as JSON values.
func sameWork(a, b *workv1alpha1.Work) (bool, error) {
	if !equality.Semantic.DeepEqual(a.Labels, b.Labels) || !equality.Semantic.DeepEqual(a.Annotations, b.Annotations) ||
		!equality.Semantic.DeepEqual(a.Finalizers, b.Finalizers) || !equality.Semantic.DeepEqual(a.OwnerReferences, b.OwnerReferences) ||
		!equality.Semantic.DeepEqual(a.Spec.SuspendDispatching, b.Spec.SuspendDispatching) ||
		!equality.Semantic.DeepEqual(a.Spec.PreserveResourcesOnDeletion, b.Spec.PreserveResourcesOnDeletion) ||
		len(a.Spec.Workload.Manifests) != len(b.Spec.Workload.Manifests) {
		return false, nil
	}
	for i := range a.Spec.Workload.Manifests {
		var x, y any
		if err := json.Unmarshal(a.Spec.Workload.Manifests[i].Raw, &x); err != nil {
			return false, nil // an unreadable manifest is rewritten
		}
		if err := json.Unmarshal(b.Spec.Workload.Manifests[i].Raw, &y); err != nil {
			return false, fmt.Errorf("decode manifest of work %s/%s: %w", b.Namespace, b.Name, err)
		}
		if !equality.Semantic.DeepEqual(x, y) {
			return false, nil
		}
	}
	return true, nil
}
