package status

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// RBAC: Cluster status (conditions, API enablements, resource summary).
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters/status,verbs=patch

// writeStatus patches the status only when desired differs semantically
// from what the cluster has: quantities compare by value, and conditions
// keep their lastTransitionTime unless their status changed.
func (r *Reconciler) writeStatus(ctx context.Context, cluster *clusterv1alpha1.Cluster, desired *clusterv1alpha1.ClusterStatus) error {
	if equality.Semantic.DeepEqual(&cluster.Status, desired) {
		return nil
	}
	patch := client.MergeFromWithOptions(cluster.DeepCopy(), client.MergeFromWithOptimisticLock{})
	cluster.Status = *desired
	if err := r.client.Status().Patch(ctx, cluster, patch); err != nil {
		return fmt.Errorf("cluster %s: update status: %w", cluster.Name, err)
	}
	log.FromContext(ctx).V(1).Info("cluster status updated")
	return nil
}
