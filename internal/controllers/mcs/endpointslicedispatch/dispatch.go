package endpointslicedispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/propel-mc/propel/internal/controllers/mcs/clusterset"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/workwriter"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// dispatch writes the copy of the provider's slice into each consumer
// that can take it and removes the copies of clusters no longer consumers.
func (r *Reconciler) dispatch(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService, work *workv1alpha1.Work, provider string) error {
	consumers, err := clusterset.Names(ctx, r.client, mcs.Spec.ConsumerClusters)
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, c := range consumers {
		keep[c] = true
	}
	if err := r.removeCopies(ctx, work.Name, provider, keep); err != nil {
		return err
	}
	if len(work.Spec.Workload.Manifests) == 0 {
		return nil
	}
	member := &discoveryv1.EndpointSlice{}
	if err := json.Unmarshal(work.Spec.Workload.Manifests[0].Raw, member); err != nil {
		return fmt.Errorf("work %s/%s: manifest is not an EndpointSlice: %w", work.Namespace, work.Name, err)
	}
	var errs []error
	for _, consumer := range consumers {
		if consumer == provider {
			continue
		}
		_, unfit, err := clusterset.Check(ctx, r.client, consumer, "Consumer", mcs.Name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if unfit.Reason != "" {
			r.recorder.Event(mcs, corev1.EventTypeWarning, unfit.Reason, unfit.Message)
			continue
		}
		errs = append(errs, r.writeCopy(ctx, mcs, work.Name, provider, consumer, member))
	}
	return errors.Join(errs...)
}

// writeCopy writes the consumer's Work holding <provider>-<slice>, with
// labels and annotations of its own (the member's are not carried).
func (r *Reconciler) writeCopy(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService, workName, provider, consumer string, member *discoveryv1.EndpointSlice) error {
	slice := &discoveryv1.EndpointSlice{
		TypeMeta: metav1.TypeMeta{APIVersion: discoveryv1.SchemeGroupVersion.String(), Kind: "EndpointSlice"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: member.Namespace,
			Name:      provider + "-" + member.Name,
			Labels: map[string]string{
				names.KubeServiceNameLabel:            mcs.Name,
				names.KubeEndpointSliceManagedByLabel: names.EndpointSliceDispatchManagedByValue,
			},
			Annotations: map[string]string{names.EndpointSliceProvisionClusterAnnotation: provider},
		},
		AddressType: member.AddressType,
		Endpoints:   member.Endpoints,
		Ports:       member.Ports,
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(slice)
	if err != nil {
		return err
	}
	obj := &unstructured.Unstructured{Object: content}
	d := &workwriter.Desired{
		Cluster:   consumer,
		Namespace: names.ExecutionSpace(consumer),
		Name:      workName,
		Labels: map[string]string{
			names.MultiClusterServiceNameLabel:      mcs.Name,
			names.MultiClusterServiceNamespaceLabel: mcs.Namespace,
		},
		Annotations: map[string]string{names.EndpointSliceProvisionClusterAnnotation: provider},
		Manifest:    obj,
	}
	if err := workwriter.PrepareManifest(obj, d.Namespace, d.Name); err != nil {
		return err
	}
	if _, err := workwriter.WriteFromCache(ctx, r.client, r.reader, d); err != nil {
		return fmt.Errorf("write Work %s for consumer %s: %w", d.Key(), consumer, err)
	}
	return nil
}
