// Package endpointslice is Karmada's endpointslice-controller
// ("endpointSlice"): it turns each Work collected for a ServiceExport into
// a control-plane EndpointSlice, imported-<cluster>-<slice> (or a
// collision-free name when that one is another cluster's), attached to
// the derived Service (derived-<service>), from where the ServiceImport's
// dependencies carry it to the consumer clusters; and removes those
// slices when the Work goes or stops serving the ServiceExport path.
package endpointslice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	discoveryv1 "k8s.io/api/discovery/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/controllers/mcs/collectedwork"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// RBAC: collected Works become control-plane EndpointSlices
// imported-<cluster>-<slice> (created, updated, deleted).
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch
// +kubebuilder:rbac:groups=discovery.k8s.io,resources=endpointslices,verbs=get;list;watch;create;update;delete

// Reconciler keeps the control-plane copies of collected slices; its
// requests are Works.
type Reconciler struct {
	client client.Client
}

// Deps are the controller's collaborators.
type Deps struct {
	// Client reads from the manager's cache and writes to the control
	// plane.
	Client client.Client
}

// New returns the controller; SetupWithManager registers it.
func New(deps Deps) *Reconciler { return &Reconciler{client: deps.Client} }

// SetupWithManager registers the controller with mgr: Works labelled for
// the ServiceExport path, and updates of Works labelled for the MCS path
// (which catch the moment the ServiceExport labels are withdrawn from a
// shared Work).
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	return builder.ControllerManagedBy(mgr).Named(names.EndpointSliceControllerName).
		For(&workv1alpha1.Work{}, builder.WithPredicates(exportedSliceWorks())).
		Complete(r)
}

func exportedSliceWorks() predicate.Funcs {
	exported := func(obj client.Object) bool { return obj.GetLabels()[names.EndpointSliceNameLabel] != "" }
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return exported(e.Object) },
		DeleteFunc: func(e event.DeleteEvent) bool { return exported(e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return exported(e.ObjectNew) || exported(e.ObjectOld) || e.ObjectNew.GetLabels()[names.MultiClusterServiceNameLabel] != ""
		},
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// Reconcile writes the Work's slices, or removes them and releases the
// Work when it is deleted or no longer exported.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	work := &workv1alpha1.Work{}
	if err := r.client.Get(ctx, req.NamespacedName, work); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !work.DeletionTimestamp.IsZero() || work.Labels[names.EndpointSliceNameLabel] == "" {
		if err := r.removeImported(ctx, work, nil); err != nil {
			return reconcile.Result{}, err
		}
		return reconcile.Result{}, collectedwork.RemoveFinalizer(ctx, r.client, work, collectedwork.ServiceExport)
	}
	cluster, err := names.ClusterOfExecutionSpace(work.Namespace)
	if err != nil {
		return reconcile.Result{}, nil
	}
	var errs []error
	written := map[client.ObjectKey]bool{}
	for i, m := range work.Spec.Workload.Manifests {
		member := &discoveryv1.EndpointSlice{}
		if err := json.Unmarshal(m.Raw, member); err != nil {
			errs = append(errs, fmt.Errorf("work %s/%s: manifest %d is not an EndpointSlice: %w", work.Namespace, work.Name, i, err))
			continue
		}
		key, err := r.writeImported(ctx, work, cluster, member)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		written[key] = true
	}
	if len(errs) == 0 {
		// A slice imported under another name before (the collision-free
		// one, while Karmada's name was taken) is gone once its
		// replacement is written.
		errs = append(errs, r.removeImported(ctx, work, written))
	}
	return reconcile.Result{}, boundedtext.Error(errors.Join(errs...))
}

// removeImported deletes the control-plane slices made from work, but
// those in keep. A slice carrying work's permanent id that another Work
// made (a name both wrote before Propel told their owners apart) is left
// to its owner.
func (r *Reconciler) removeImported(ctx context.Context, work *workv1alpha1.Work, keep map[client.ObjectKey]bool) error {
	id := work.Labels[names.WorkPermanentIDLabel]
	if id == "" {
		return nil
	}
	slices := &discoveryv1.EndpointSliceList{}
	if err := r.client.List(ctx, slices, client.MatchingLabels{names.WorkPermanentIDLabel: id}); err != nil {
		return fmt.Errorf("list the imported endpointslices of Work %s/%s: %w", work.Namespace, work.Name, err)
	}
	var errs []error
	for i := range slices.Items {
		if keep[client.ObjectKeyFromObject(&slices.Items[i])] || !madeFrom(&slices.Items[i], work) {
			continue
		}
		if err := r.client.Delete(ctx, &slices.Items[i]); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("delete endpointslice %s/%s of Work %s/%s: %w", slices.Items[i].Namespace, slices.Items[i].Name, work.Namespace, work.Name, err))
		}
	}
	return errors.Join(errs...)
}

// writeImported creates or updates the control-plane copy of member
// (imported-<cluster>-<slice>, or the collision-free name when another
// Work's copy holds that one): metadata of its own (the member's labels
// are not carried), the member's address type, endpoints and ports. It
// returns the copy's key.
func (r *Reconciler) writeImported(ctx context.Context, work *workv1alpha1.Work, cluster string, member *discoveryv1.EndpointSlice) (client.ObjectKey, error) {
	name, err := r.importedName(ctx, work, cluster, member)
	if err != nil {
		return client.ObjectKey{}, err
	}
	desired := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: member.Namespace,
			Name:      name,
			Labels: map[string]string{
				names.WorkPermanentIDLabel:            work.Labels[names.WorkPermanentIDLabel],
				names.KubeServiceNameLabel:            names.DerivedServiceName(work.Labels[names.EndpointSliceNameLabel]),
				names.KubeEndpointSliceManagedByLabel: names.EndpointSliceControllerManagedByValue,
			},
			Annotations: map[string]string{
				names.WorkNamespaceAnnotation: work.Namespace,
				names.WorkNameAnnotation:      work.Name,
			},
		},
		AddressType: member.AddressType,
		Endpoints:   member.Endpoints,
		Ports:       member.Ports,
	}
	key := client.ObjectKeyFromObject(desired)
	return key, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current := &discoveryv1.EndpointSlice{}
		err := r.client.Get(ctx, key, current)
		if apierrors.IsNotFound(err) {
			if err := r.client.Create(ctx, desired); err != nil {
				return fmt.Errorf("create endpointslice %s: %w", key, err)
			}
			return nil
		}
		if err != nil {
			return err
		}
		if !madeFrom(current, work) {
			return fmt.Errorf("endpointslice %s was taken by another Work than %s/%s", key, work.Namespace, work.Name)
		}
		if apiequality.Semantic.DeepEqual(current.Labels, desired.Labels) && current.AddressType == desired.AddressType &&
			apiequality.Semantic.DeepEqual(current.Endpoints, desired.Endpoints) && apiequality.Semantic.DeepEqual(current.Ports, desired.Ports) {
			return nil
		}
		current.Labels, current.AddressType, current.Endpoints, current.Ports = desired.Labels, desired.AddressType, desired.Endpoints, desired.Ports
		if err := r.client.Update(ctx, current); err != nil {
			return fmt.Errorf("update endpointslice %s: %w", key, err)
		}
		return nil
	})
}
