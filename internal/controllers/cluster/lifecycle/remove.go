package lifecycle

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// ensureFinalizer adds karmada.io/cluster-controller to a live cluster.
func (r *Reconciler) ensureFinalizer(ctx context.Context, cluster *clusterv1alpha1.Cluster) error {
	if controllerutil.ContainsFinalizer(cluster, names.ClusterControllerFinalizer) {
		return nil
	}
	patch := client.MergeFromWithOptions(cluster.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.AddFinalizer(cluster, names.ClusterControllerFinalizer)
	if err := r.client.Patch(ctx, cluster, patch); err != nil {
		return fmt.Errorf("cluster %s: add finalizer: %w", cluster.Name, err)
	}
	return nil
}

// remove runs the cleanup of a deleted cluster, requeueing while the
// execution namespace or bindings targeting the cluster remain. It is the
// only path that deletes anything, and it deletes only the execution space.
func (r *Reconciler) remove(ctx context.Context, cluster *clusterv1alpha1.Cluster) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(cluster, names.ClusterControllerFinalizer) {
		return ctrl.Result{}, nil
	}
	if cluster.Spec.SyncMode == clusterv1alpha1.Pull && !isReady(cluster) {
		if err := r.releaseWorks(ctx, cluster); err != nil {
			return ctrl.Result{}, err
		}
	}
	gone, err := r.removeExecutionSpace(ctx, cluster)
	if err != nil || !gone {
		return ctrl.Result{RequeueAfter: r.opts.RemovalPollInterval}, err
	}
	r.monitor.forget(cluster.Name)
	targeted, err := r.targetedByBindings(ctx, cluster.Name)
	if err != nil || targeted {
		if targeted {
			log.FromContext(ctx).V(1).Info("waiting for bindings to stop targeting the deleted cluster")
		}
		return ctrl.Result{RequeueAfter: r.opts.RemovalPollInterval}, err
	}
	return ctrl.Result{}, r.removeFinalizer(ctx, cluster)
}

func isReady(cluster *clusterv1alpha1.Cluster) bool {
	return meta.IsStatusConditionTrue(cluster.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
}

// releaseWorks strips the execution-controller finalizer from the Works of
// an unready Pull cluster: no agent will ever process their deletion.
func (r *Reconciler) releaseWorks(ctx context.Context, cluster *clusterv1alpha1.Cluster) error {
	works := &workv1alpha1.WorkList{}
	if err := r.client.List(ctx, works, client.InNamespace(names.ExecutionSpace(cluster.Name))); err != nil {
		return fmt.Errorf("cluster %s: list works: %w", cluster.Name, err)
	}
	for i := range works.Items {
		w := &works.Items[i]
		if !controllerutil.ContainsFinalizer(w, names.ExecutionControllerFinalizer) {
			continue
		}
		patch := client.MergeFromWithOptions(w.DeepCopy(), client.MergeFromWithOptimisticLock{})
		controllerutil.RemoveFinalizer(w, names.ExecutionControllerFinalizer)
		if err := r.client.Patch(ctx, w, patch); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("cluster %s: release work %s: %w", cluster.Name, w.Name, err)
		}
	}
	return nil
}

func (r *Reconciler) removeFinalizer(ctx context.Context, cluster *clusterv1alpha1.Cluster) error {
	patch := client.MergeFromWithOptions(cluster.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(cluster, names.ClusterControllerFinalizer)
	if err := r.client.Patch(ctx, cluster, patch); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("cluster %s: remove finalizer: %w", cluster.Name, err)
	}
	log.FromContext(ctx).Info("cluster cleaned up", "deletedAt", cluster.DeletionTimestamp.Format(metav1.RFC3339Micro))
	return nil
}
