package unifiedauth

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/pkg/workwriter"
)

// writeWork creates d's Work controlled by cluster, so that it goes with
// the Cluster, or merges d into the existing Work (whose owners are left
// as they are, as Karmada leaves them).
func (r *Reconciler) writeWork(ctx context.Context, cluster *clusterv1alpha1.Cluster, d *workwriter.Desired) error {
	cached := &workv1alpha1.Work{}
	err := r.client.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: d.Name}, cached)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if apierrors.IsNotFound(err) {
		created, err := r.createWork(ctx, cluster, d)
		if err != nil || created {
			return err
		}
		cached = nil // it exists after all: read it fresh
	}
	written, err := workwriter.Write(ctx, r.client, r.reader, d, cached)
	if written {
		log.FromContext(ctx).V(2).Info("updated impersonation work", "work", klog.KRef(d.Namespace, d.Name))
	}
	return err
}

// createWork creates d's Work with cluster as its controller; it reports
// false, without error, when the Work already exists.
func (r *Reconciler) createWork(ctx context.Context, cluster *clusterv1alpha1.Cluster, d *workwriter.Desired) (bool, error) {
	w, err := d.NewWork()
	if err != nil {
		return false, err
	}
	w.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(cluster, clusterv1alpha1.GroupVersion.WithKind("Cluster"))}
	if err := r.client.Create(ctx, w); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return false, nil
		}
		return false, err
	}
	log.FromContext(ctx).V(2).Info("created impersonation work", "work", klog.KObj(w))
	return true, nil
}
