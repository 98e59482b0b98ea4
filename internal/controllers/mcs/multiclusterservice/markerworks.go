package multiclusterservice

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/controllers/mcs/clusterset"
	"github.com/propel-mc/propel/internal/controllers/mcs/collectedwork"
	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/workwriter"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// writeMarkerWorks writes the marker Work of each provider that can take
// part, and removes those of clusters that are no longer providers (a
// provider that is merely not Ready keeps its Work).
func (r *Reconciler) writeMarkerWorks(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService, providers []string) error {
	var errs []error
	keep := map[string]bool{}
	for _, name := range providers {
		cluster, unfit, err := clusterset.Check(ctx, r.client, name, "Provider", mcs.Name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if cluster != nil {
			keep[names.ExecutionSpace(name)] = true
		}
		if unfit.Reason != "" {
			r.recorder.Event(mcs, corev1.EventTypeWarning, unfit.Reason, unfit.Message)
			continue
		}
		errs = append(errs, r.writeMarkerWork(ctx, mcs, name))
	}
	works, err := r.markerWorks(ctx, mcs)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	for i := range works {
		if !keep[works[i].Namespace] {
			errs = append(errs, r.removeMarkerWork(ctx, mcs, &works[i]))
		}
	}
	return errors.Join(errs...)
}

func (r *Reconciler) writeMarkerWork(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService, cluster string) error {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mcs)
	if err != nil {
		return fmt.Errorf("convert multiclusterservice: %w", err)
	}
	obj := &unstructured.Unstructured{Object: content}
	obj.SetAPIVersion(networkingv1alpha1.GroupVersion.String())
	obj.SetKind("MultiClusterService")
	d := &workwriter.Desired{
		Cluster:   cluster,
		Namespace: names.ExecutionSpace(cluster),
		Name:      names.WorkName("MultiClusterService", mcs.Name, mcs.Namespace),
		Labels: map[string]string{
			names.MultiClusterServicePermanentIDLabel: mcs.Labels[names.MultiClusterServicePermanentIDLabel],
			names.MultiClusterServiceNamespaceLabel:   mcs.Namespace,
			names.MultiClusterServiceNameLabel:        mcs.Name,
		},
		Suspend: true,
		// A marker is never applied: no execution finalizer.
		Finalizers: []string{},
		Manifest:   obj,
	}
	if err := workwriter.PrepareManifest(obj, d.Namespace, d.Name); err != nil {
		return err
	}
	if _, err := workwriter.WriteFromCache(ctx, r.client, r.reader, d); err != nil {
		return fmt.Errorf("write Work %s for provider %s: %w", d.Key(), cluster, err)
	}
	return nil
}

// markerWorks lists the MCS's marker Works in every execution namespace.
func (r *Reconciler) markerWorks(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService) ([]workv1alpha1.Work, error) {
	id := mcs.Labels[names.MultiClusterServicePermanentIDLabel]
	if id == "" {
		return nil, nil
	}
	list := &workv1alpha1.WorkList{}
	if err := r.client.List(ctx, list, client.MatchingLabels{names.MultiClusterServicePermanentIDLabel: id}); err != nil {
		return nil, fmt.Errorf("list the Works of multiclusterservice %s/%s: %w", mcs.Namespace, mcs.Name, err)
	}
	out := list.Items[:0]
	for _, w := range list.Items {
		if collectedwork.Holds(&w, networkingv1alpha1.GroupVersion.Group, "MultiClusterService") {
			out = append(out, w)
		}
	}
	return out, nil
}

// removeMarkerWork withdraws the MCS path from the provider's collected
// Works, then deletes the marker Work.
func (r *Reconciler) removeMarkerWork(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService, marker *workv1alpha1.Work) error {
	list := &workv1alpha1.WorkList{}
	err := r.client.List(ctx, list, client.InNamespace(marker.Namespace),
		client.MatchingLabels{names.MultiClusterServiceNamespaceLabel: mcs.Namespace, names.MultiClusterServiceNameLabel: mcs.Name})
	if err != nil {
		return fmt.Errorf("list collected Works in %s: %w", marker.Namespace, err)
	}
	var errs []error
	for i := range list.Items {
		w := &list.Items[i]
		if _, dispatched := w.Annotations[names.EndpointSliceProvisionClusterAnnotation]; dispatched || !collectedwork.HoldsEndpointSlice(w) {
			continue
		}
		errs = append(errs, collectedwork.Clean(ctx, r.client, w, collectedwork.MultiClusterService))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := r.client.Delete(ctx, marker); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("delete Work %s/%s: %w", marker.Namespace, marker.Name, err)
	}
	return nil
}
