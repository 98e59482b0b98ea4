package multiclusterservice

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/templatebinding"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// claim takes the Service from any policy: the detector leaves a claimed
// template alone.
func (r *Reconciler) claim(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService, svc *corev1.Service) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current := &corev1.Service{}
		if err := r.client.Get(ctx, client.ObjectKeyFromObject(svc), current); err != nil {
			return err
		}
		updated := current.DeepCopy()
		if updated.Labels == nil {
			updated.Labels = map[string]string{}
		}
		if updated.Annotations == nil {
			updated.Annotations = map[string]string{}
		}
		policyindex.RemoveClaim(updated, false)
		policyindex.RemoveClaim(updated, true)
		updated.Labels[names.ClaimedByLabel] = names.ManagedByMultiClusterService
		updated.Labels[names.MultiClusterServicePermanentIDLabel] = mcs.Labels[names.MultiClusterServicePermanentIDLabel]
		updated.Annotations[names.MultiClusterServiceNameAnnotation] = mcs.Name
		updated.Annotations[names.MultiClusterServiceNamespaceAnnotation] = mcs.Namespace
		if apiequality.Semantic.DeepEqual(current.Labels, updated.Labels) && apiequality.Semantic.DeepEqual(current.Annotations, updated.Annotations) {
			*svc = *current
			return nil
		}
		if err := r.client.Update(ctx, updated); err != nil {
			return err
		}
		*svc = *updated
		return nil
	})
}

// unclaim gives the Service and its binding back: the claim labels go
// (the MCS annotations stay on the Service, as in Karmada), and the
// binding loses its MCS labels and annotations but stays, as on policy
// deletion, so that a policy may claim the Service again.
func (r *Reconciler) unclaim(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService) error {
	key := client.ObjectKeyFromObject(mcs)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		svc := &corev1.Service{}
		if err := r.client.Get(ctx, key, svc); err != nil {
			return client.IgnoreNotFound(err)
		}
		if svc.Labels[names.ClaimedByLabel] != names.ManagedByMultiClusterService {
			return nil
		}
		delete(svc.Labels, names.ClaimedByLabel)
		delete(svc.Labels, names.MultiClusterServicePermanentIDLabel)
		return r.client.Update(ctx, svc)
	})
	if err != nil {
		return fmt.Errorf("un-claim service %s: %w", key, err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		rb := &workv1alpha2.ResourceBinding{}
		if err := r.client.Get(ctx, templatebinding.Key(mcs.Namespace, "Service", mcs.Name), rb); err != nil {
			return client.IgnoreNotFound(err)
		}
		if rb.Labels[names.BindingManagedByLabel] != names.ManagedByMultiClusterService {
			return nil
		}
		delete(rb.Labels, names.BindingManagedByLabel)
		delete(rb.Labels, names.MultiClusterServicePermanentIDLabel)
		delete(rb.Annotations, names.MultiClusterServiceNameAnnotation)
		delete(rb.Annotations, names.MultiClusterServiceNamespaceAnnotation)
		return r.client.Update(ctx, rb)
	})
	if err != nil {
		return fmt.Errorf("un-claim the binding of service %s: %w", key, err)
	}
	return nil
}
