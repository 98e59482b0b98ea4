package multiclusterservice

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/templatebinding"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// bind creates or updates the binding <service>-service that places the
// Service (Duplicated) in clusters.
func (r *Reconciler) bind(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService, svc *corev1.Service, clusters []string) error {
	key := templatebinding.Key(svc.Namespace, "Service", svc.Name)
	labels := map[string]string{
		names.BindingManagedByLabel:               names.ManagedByMultiClusterService,
		names.MultiClusterServicePermanentIDLabel: mcs.Labels[names.MultiClusterServicePermanentIDLabel],
	}
	annotations := map[string]string{
		names.MultiClusterServiceNameAnnotation:      mcs.Name,
		names.MultiClusterServiceNamespaceAnnotation: mcs.Namespace,
	}
	service := workv1alpha2.ObjectReference{APIVersion: "v1", Kind: "Service", Namespace: svc.Namespace, Name: svc.Name, UID: svc.UID, ResourceVersion: svc.ResourceVersion}
	spec := func(rb *workv1alpha2.ResourceBinding) {
		templatebinding.Bind(rb, service, templatebinding.Owned)
		rb.Spec.Placement = &policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: clusters}}
		rb.Spec.ConflictResolution = policyv1alpha1.ConflictOverwrite
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current := &workv1alpha2.ResourceBinding{}
		err := r.client.Get(ctx, key, current)
		if apierrors.IsNotFound(err) {
			rb := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name, Labels: labels, Annotations: annotations}}
			spec(rb)
			if err := r.client.Create(ctx, rb); err != nil {
				return fmt.Errorf("create resourcebinding %s: %w", key, err)
			}
			return nil
		}
		if err != nil {
			return err
		}
		if c := metav1.GetControllerOf(current); c != nil && c.UID != svc.UID {
			return fmt.Errorf("resourcebinding %s is controlled by another object (uid %s); waiting for garbage collection", key, c.UID)
		}
		updated := current.DeepCopy()
		if updated.Labels == nil {
			updated.Labels = map[string]string{}
		}
		if updated.Annotations == nil {
			updated.Annotations = map[string]string{}
		}
		for k, v := range labels {
			updated.Labels[k] = v
		}
		for k, v := range annotations {
			updated.Annotations[k] = v
		}
		spec(updated)
		if apiequality.Semantic.DeepEqual(current, updated) {
			return nil
		}
		if err := r.client.Update(ctx, updated); err != nil {
			return fmt.Errorf("update resourcebinding %s: %w", key, err)
		}
		return nil
	})
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, n := range b {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
