// Package collectedwork writes and cleans the Works that report a member
// cluster's EndpointSlice back to the control plane. Both multi-cluster
// service paths (ServiceExport and MultiClusterService) collect into the
// same Work for a given slice, so the Work records its users in the
// "endpointslice.karmada.io/managed-by" set: reporting adds a path to the
// set, cleaning removes it, and the Work goes when the set is empty.
package collectedwork

import (
	"context"
	"fmt"
	"slices"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/internal/shared/workapply"
	"github.com/propel-mc/propel/internal/shared/workwriter"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// RBAC: collected Works are written, deleted when the export ends, and
// released from their finalizer (patch).
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch;create;update;patch;delete

// Path is one of the two collectors.
type Path struct {
	// ManagedBy is the path's member of the managed-by set.
	ManagedBy string
	// NamespaceLabel and NameLabel carry the Service's namespace and name
	// on the Work.
	NamespaceLabel, NameLabel string
	// Finalizer is the one of the controller that turns the Work into
	// control-plane (or consumer) slices.
	Finalizer string
}

var (
	// ServiceExport is the MCS-API path.
	ServiceExport = Path{
		ManagedBy:      names.ManagedByServiceExport,
		NamespaceLabel: names.EndpointSliceNamespaceLabel,
		NameLabel:      names.EndpointSliceNameLabel,
		Finalizer:      names.EndpointSliceControllerFinalizer,
	}
	// MultiClusterService is the MultiClusterService path.
	MultiClusterService = Path{
		ManagedBy:      names.ManagedByMultiClusterService,
		NamespaceLabel: names.MultiClusterServiceNamespaceLabel,
		NameLabel:      names.MultiClusterServiceNameLabel,
		Finalizer:      names.MCSEndpointSliceDispatchControllerFinalizer,
	}
)

// EndpointSliceGVK is discovery.k8s.io/v1 EndpointSlice.
var EndpointSliceGVK = discoveryv1.SchemeGroupVersion.WithKind("EndpointSlice")

// WorkName is the name of the Work collecting the member slice
// namespace/name (the same in every execution namespace).
func WorkName(namespace, name string) string {
	return names.WorkName("EndpointSlice", name, namespace)
}

// ManagedBy returns the set in a Work's managed-by label.
func ManagedBy(work client.Object) []string {
	v := work.GetLabels()[names.EndpointSliceWorkManagedByLabel]
	if v == "" {
		return nil
	}
	return strings.Split(v, ".")
}

// IsManagedBy reports whether path uses work.
func IsManagedBy(work client.Object, path Path) bool {
	return slices.Contains(ManagedBy(work), path.ManagedBy)
}

// joinSet writes a set in its label form, sorted so that the label does
// not change with the order in which paths arrived.
func joinSet(set []string) string {
	set = slices.Clone(set)
	slices.Sort(set)
	return strings.Join(slices.Compact(set), ".")
}

// IsKarmadaManaged reports whether slice is one of the copies Karmada (or
// Propel) made: such slices are never collected, which breaks the loop
// between collecting and dispatching.
func IsKarmadaManaged(slice *unstructured.Unstructured) bool {
	switch slice.GetLabels()[names.KubeEndpointSliceManagedByLabel] {
	case names.EndpointSliceControllerManagedByValue, names.EndpointSliceDispatchManagedByValue:
		return true
	}
	return false
}

// HoldsEndpointSlice reports whether work's manifests include an
// EndpointSlice.
func HoldsEndpointSlice(work *workv1alpha1.Work) bool {
	return holds(work, EndpointSliceGVK.Group, EndpointSliceGVK.Kind)
}

func holds(work *workv1alpha1.Work, group, kind string) bool {
	refs, err := workapply.Refs(work)
	if err != nil {
		return false
	}
	for _, ref := range refs {
		if ref.GVK.Group == group && ref.GVK.Kind == kind {
			return true
		}
	}
	return false
}

// Report writes (or merges into) the Work collecting slice from cluster
// for path; service is the Service the slice belongs to. Labels of the
// other path stay and path joins the managed-by set.
func Report(ctx context.Context, c client.Client, reader client.Reader, cluster, service string, slice *unstructured.Unstructured, path Path) error {
	ns := slice.GetNamespace()
	d := &workwriter.Desired{
		Cluster:    cluster,
		Namespace:  names.ExecutionSpace(cluster),
		Name:       WorkName(ns, slice.GetName()),
		Suspend:    true,
		Finalizers: []string{path.Finalizer},
	}
	cached, err := workwriter.Cached(ctx, c, d)
	if err != nil {
		return err
	}
	var set []string
	if cached != nil {
		set = ManagedBy(cached)
	}
	d.Labels = map[string]string{
		path.NamespaceLabel:                   ns,
		path.NameLabel:                        service,
		names.EndpointSliceWorkManagedByLabel: joinSet(append(set, path.ManagedBy)),
	}
	manifest := slice.DeepCopy()
	if err := workwriter.PrepareManifest(manifest, d.Namespace, d.Name); err != nil {
		return fmt.Errorf("endpointslice %s/%s of cluster %s: %w", ns, slice.GetName(), cluster, err)
	}
	d.Manifest = manifest
	if _, err := workwriter.Write(ctx, c, reader, d, cached); err != nil {
		return fmt.Errorf("write Work %s for endpointslice %s/%s: %w", d.Key(), ns, slice.GetName(), err)
	}
	return nil
}

// Clean withdraws path from work: the Work is deleted when no other path
// uses it, or else loses path's labels (the follow-up controller of path
// then removes what it derived from the Work, and its finalizer).
func Clean(ctx context.Context, c client.Client, work *workv1alpha1.Work, path Path) error {
	key := client.ObjectKeyFromObject(work)
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current := &workv1alpha1.Work{}
		if err := c.Get(ctx, key, current); err != nil {
			return client.IgnoreNotFound(err)
		}
		rest := slices.DeleteFunc(ManagedBy(current), func(p string) bool { return p == path.ManagedBy })
		if len(rest) == 0 {
			err := c.Delete(ctx, current, client.Preconditions{UID: &current.UID})
			if err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("delete Work %s: %w", key, err)
			}
			return nil
		}
		labels := current.GetLabels()
		_, hasNS := labels[path.NamespaceLabel]
		_, hasName := labels[path.NameLabel]
		newSet := joinSet(rest)
		if !hasNS && !hasName && labels[names.EndpointSliceWorkManagedByLabel] == newSet {
			return nil
		}
		delete(labels, path.NamespaceLabel)
		delete(labels, path.NameLabel)
		labels[names.EndpointSliceWorkManagedByLabel] = newSet
		if err := c.Update(ctx, current); err != nil {
			return fmt.Errorf("withdraw %s from Work %s: %w", path.ManagedBy, key, err)
		}
		return nil
	})
}

// RemoveFinalizer releases work from path's follow-up controller.
func RemoveFinalizer(ctx context.Context, c client.Client, work *workv1alpha1.Work, path Path) error {
	if !controllerutil.ContainsFinalizer(work, path.Finalizer) {
		return nil
	}
	patched := work.DeepCopy()
	controllerutil.RemoveFinalizer(patched, path.Finalizer)
	if err := c.Patch(ctx, patched, client.MergeFromWithOptions(work, client.MergeFromWithOptimisticLock{})); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("remove finalizer %s from Work %s/%s: %w", path.Finalizer, work.Namespace, work.Name, err))
	}
	return nil
}

// Holds reports whether work's manifests include one of group/kind.
func Holds(work *workv1alpha1.Work, group, kind string) bool { return holds(work, group, kind) }

// IsCollected reports whether work is a Work collected for path (suspended,
// holding an EndpointSlice, path in its managed-by set). Only such Works
// are ever withdrawn: a dispatched Work of the same name, such as one
// propagating a control-plane EndpointSlice, is left alone.
func IsCollected(work *workv1alpha1.Work, path Path) bool {
	return work.DispatchingSuspended() && IsManagedBy(work, path) && HoldsEndpointSlice(work)
}
