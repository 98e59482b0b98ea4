package serviceimport

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/names"
	mcsv1alpha1 "github.com/propel-mc/propel/pkg/apis/multicluster/v1alpha1"
)

// Reconcile writes the derived Service of a ClusterSetIP import, or
// deletes it when the import is gone. A terminating or Headless import
// leaves an existing derived Service alone (as Karmada does).
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	imp := &mcsv1alpha1.ServiceImport{}
	if err := r.client.Get(ctx, req.NamespacedName, imp); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, r.deleteDerived(ctx, req.Namespace, req.Name)
		}
		return reconcile.Result{}, err
	}
	if !imp.DeletionTimestamp.IsZero() || imp.Spec.Type != mcsv1alpha1.ClusterSetIP {
		return reconcile.Result{}, nil
	}
	if err := r.sync(ctx, imp); err != nil {
		r.recorder.Eventf(imp, corev1.EventTypeWarning, EventReasonSyncDerivedServiceFailed, "Sync derived service for serviceImport(%s) failed: %v", imp.Name, boundedtext.Error(err))
		return reconcile.Result{}, err
	}
	r.recorder.Eventf(imp, corev1.EventTypeNormal, EventReasonSyncDerivedServiceSucceed, "Sync derived service for serviceImport(%s) succeed.", imp.Name)
	return reconcile.Result{}, nil
}

func (r *Reconciler) deleteDerived(ctx context.Context, namespace, name string) error {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: names.DerivedServiceName(name)}}
	if err := r.client.Delete(ctx, svc); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("delete derived service %s/%s: %w", namespace, svc.Name, err)
	}
	return nil
}
