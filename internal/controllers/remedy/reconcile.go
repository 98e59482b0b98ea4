package remedy

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/liveobject"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	remedyv1alpha1 "github.com/propel-mc/propel/pkg/apis/remedy/v1alpha1"
)

// Reconcile writes the cluster's remedyActions when they changed.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	logger := log.FromContext(ctx).WithValues("cluster", klog.KRef("", req.Name))
	cluster := &clusterv1alpha1.Cluster{}
	if live, err := liveobject.Get(ctx, r.client, req.NamespacedName, cluster); !live {
		return reconcile.Result{}, err
	}
	var remedies remedyv1alpha1.RemedyList
	if err := r.client.List(ctx, &remedies); err != nil {
		return reconcile.Result{}, fmt.Errorf("list remedies: %w", err)
	}
	want := actions(remedies.Items, cluster.Name, cluster.Status.Conditions)
	if slices.Equal(want, cluster.Status.RemedyActions) {
		return reconcile.Result{}, nil
	}
	patch := client.MergeFrom(cluster.DeepCopy())
	cluster.Status.RemedyActions = want
	if err := r.client.Status().Patch(ctx, cluster, patch); err != nil {
		return reconcile.Result{}, fmt.Errorf("patch remedyActions of cluster %s: %w", cluster.Name, err)
	}
	logger.V(2).Info("updated remedy actions", "remedyActions", want)
	return reconcile.Result{}, nil
}
