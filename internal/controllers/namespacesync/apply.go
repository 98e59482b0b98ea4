package namespacesync

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/shared/workwriter"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// syncWork writes the namespace's Work in cluster's execution namespace
// through the Work writer: created, or updated when it differs from what
// it should be.
func (r *Reconciler) syncWork(ctx context.Context, ns *corev1.Namespace, cluster *clusterv1alpha1.Cluster) error {
	d, err := r.desiredWork(ctx, ns, cluster)
	if err != nil {
		return err
	}
	written, err := workwriter.WriteFromCache(ctx, r.client, r.reader, d)
	if err != nil {
		return fmt.Errorf("cluster %s: write work %s: %w", cluster.Name, d.Key(), err)
	}
	if written {
		log.FromContext(ctx).V(1).Info("wrote namespace work", "cluster", klog.KObj(cluster), "work", klog.KRef(d.Namespace, d.Name))
	}
	return nil
}
