package lifecycle

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// ensureExecutionSpace creates karmada-es-<cluster> labelled
// karmada.io/system=true, or adds the label to an existing namespace.
func (r *Reconciler) ensureExecutionSpace(ctx context.Context, cluster *clusterv1alpha1.Cluster) error {
	name := names.ExecutionSpace(cluster.Name)
	ns := &corev1.Namespace{}
	err := r.client.Get(ctx, types.NamespacedName{Name: name}, ns)
	switch {
	case apierrors.IsNotFound(err):
		return r.createExecutionSpace(ctx, cluster, name)
	case err != nil:
		return fmt.Errorf("cluster %s: get execution space %s: %w", cluster.Name, name, err)
	case ns.Labels[names.SystemLabel] == names.TrueValue:
		return nil
	}
	patch := client.MergeFrom(ns.DeepCopy())
	metav1.SetMetaDataLabel(&ns.ObjectMeta, names.SystemLabel, names.TrueValue)
	if err := r.client.Patch(ctx, ns, patch); err != nil {
		return fmt.Errorf("cluster %s: label execution space %s: %w", cluster.Name, name, err)
	}
	return nil
}

func (r *Reconciler) createExecutionSpace(ctx context.Context, cluster *clusterv1alpha1.Cluster, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{names.SystemLabel: names.TrueValue}}}
	err := r.client.Create(ctx, ns)
	if apierrors.IsAlreadyExists(err) {
		return nil // the cache lagged; the next event settles the label
	}
	if err != nil {
		r.recorder.Eventf(cluster, corev1.EventTypeWarning, EventReasonCreateExecutionSpaceFailed,
			"Failed to create execution space for cluster(%s): %v", cluster.Name, boundedtext.Error(err))
		return fmt.Errorf("cluster %s: create execution space %s: %w", cluster.Name, name, err)
	}
	r.recorder.Eventf(cluster, corev1.EventTypeNormal, EventReasonCreateExecutionSpaceSucceed,
		"Created execution space(%s) for cluster(%s).", name, cluster.Name)
	log.FromContext(ctx).Info("created execution space", "namespace", klog.KRef("", name))
	return nil
}

// removeExecutionSpace deletes karmada-es-<cluster> and reports whether it
// is gone. The namespace controller then deletes the Works in it; their
// finalizers let the execution controller decide about member objects.
func (r *Reconciler) removeExecutionSpace(ctx context.Context, cluster *clusterv1alpha1.Cluster) (gone bool, err error) {
	name := names.ExecutionSpace(cluster.Name)
	ns := &corev1.Namespace{}
	if err := r.client.Get(ctx, types.NamespacedName{Name: name}, ns); err != nil {
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, fmt.Errorf("cluster %s: get execution space %s: %w", cluster.Name, name, err)
	}
	if !ns.DeletionTimestamp.IsZero() {
		return false, nil
	}
	if err := r.client.Delete(ctx, ns); err != nil && !apierrors.IsNotFound(err) {
		r.recorder.Eventf(cluster, corev1.EventTypeWarning, EventReasonRemoveExecutionSpaceFailed,
			"Failed to remove execution space(%s) of cluster(%s): %v", name, cluster.Name, boundedtext.Error(err))
		return false, fmt.Errorf("cluster %s: delete execution space %s: %w", cluster.Name, name, err)
	}
	r.recorder.Eventf(cluster, corev1.EventTypeNormal, EventReasonRemoveExecutionSpaceSucceed,
		"Removed execution space(%s) of cluster(%s).", name, cluster.Name)
	log.FromContext(ctx).Info("deleted execution space", "namespace", klog.KRef("", name))
	return false, nil
}
