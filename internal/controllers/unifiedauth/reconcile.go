package unifiedauth

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/liveobject"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// Reconcile syncs one cluster's impersonation config in phases: resolve
// the cluster, find the subjects that reach its proxy, write the Works of
// the ClusterRole and binding, record the outcome on the Cluster.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cluster := &clusterv1alpha1.Cluster{}
	// A Cluster being deleted takes its Works along (they are controlled
	// by it), and its execution namespace with them.
	if live, err := liveobject.Get(ctx, r.client, req.NamespacedName, cluster); !live {
		return reconcile.Result{}, err
	}
	logger := log.FromContext(ctx).WithValues("cluster", klog.KObj(cluster))
	if cluster.Spec.ImpersonatorSecretRef == nil {
		logger.V(2).Info("unified auth is disabled: the cluster has no impersonator secret")
		return reconcile.Result{}, nil
	}
	if err := r.sync(log.IntoContext(ctx, logger), cluster); err != nil {
		err = boundedtext.Error(err)
		r.recorder.Event(cluster, corev1.EventTypeWarning, EventReasonSyncImpersonationConfigFailed, err.Error())
		return reconcile.Result{}, err
	}
	r.recorder.Event(cluster, corev1.EventTypeNormal, EventReasonSyncImpersonationConfigSucceed, syncSucceededMessage)
	return reconcile.Result{}, nil
}

// sync writes the Works of cluster's impersonation ClusterRole and
// binding, the role first.
func (r *Reconciler) sync(ctx context.Context, cluster *clusterv1alpha1.Cluster) error {
	subjects, err := r.subjectsOf(ctx, cluster.Name)
	if err != nil {
		return err
	}
	works, err := desiredWorks(cluster, impersonationRules(subjects))
	if err != nil {
		return fmt.Errorf("cluster %s: %w", cluster.Name, err)
	}
	for _, d := range works {
		if err := r.writeWork(ctx, d); err != nil {
			return fmt.Errorf("cluster %s: write Work %s: %w", cluster.Name, d.Key(), err)
		}
	}
	return nil
}

// subjectsOf reads karmada-apiserver's ClusterRoles and bindings and
// returns the subjects that reach cluster through a proxy.
func (r *Reconciler) subjectsOf(ctx context.Context, cluster string) ([]rbacv1.Subject, error) {
	roles := &rbacv1.ClusterRoleList{}
	if err := r.client.List(ctx, roles); err != nil {
		return nil, fmt.Errorf("cluster %s: list ClusterRoles: %w", cluster, err)
	}
	bindings := &rbacv1.ClusterRoleBindingList{}
	if err := r.client.List(ctx, bindings); err != nil {
		return nil, fmt.Errorf("cluster %s: list ClusterRoleBindings: %w", cluster, err)
	}
	return proxySubjects(roles.Items, bindings.Items, cluster), nil
}
