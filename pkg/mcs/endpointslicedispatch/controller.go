// Package endpointslicedispatch is Karmada's
// endpointslice-dispatch-controller ("endpointsliceDispatch", behind the
// MultiClusterService gate): it copies each EndpointSlice collected from a
// provider cluster into a Work of every consumer cluster, as the slice
// <provider>-<slice> of the Service the MultiClusterService names, and
// records the outcome in the EndpointSliceDispatched condition.
package endpointslicedispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/pkg/boundedtext"
	"github.com/propel-mc/propel/pkg/controllermanager/recorder"
	"github.com/propel-mc/propel/pkg/mcs/clusterset"
	"github.com/propel-mc/propel/pkg/mcs/collectedwork"
	"github.com/propel-mc/propel/pkg/mcs/multiclusterservice"
	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/pkg/workwriter"
)

// RBAC: collected slices are dispatched to consumers' Works (created,
// updated, deleted).
// +kubebuilder:rbac:groups=networking.karmada.io,resources=multiclusterservices,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch;create;update;delete

// Event reasons (Karmada's), on the MultiClusterService.
const (
	EventReasonDispatchEndpointSliceSucceed = "DispatchEndpointSliceSucceed"
	EventReasonDispatchEndpointSliceFailed  = "DispatchEndpointSliceFailed"
)

const dispatchedMessage = "EndpointSlice are dispatched successfully"

// Reconciler dispatches collected slices; its requests are provider slice
// Works.
type Reconciler struct {
	client   client.Client
	reader   client.Reader
	recorder record.EventRecorder
}

// New returns the controller; SetupWithManager wires it.
func New() *Reconciler { return &Reconciler{} }

// SetupWithManager registers the controller with mgr: provider slice
// Works, and the provider slice Works of an MCS that changes or whose
// consumer cluster changes.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	r.client, r.reader = mgr.GetClient(), mgr.GetAPIReader()
	r.recorder = recorder.For(mgr, names.EndpointSliceDispatchControllerName)
	return builder.ControllerManagedBy(mgr).Named(names.EndpointSliceDispatchControllerName).
		For(&workv1alpha1.Work{}, builder.WithPredicates(providerSliceWorks())).
		Watches(&networkingv1alpha1.MultiClusterService{}, handler.EnqueueRequestsFromMapFunc(r.worksOfMCS)).
		Watches(&clusterv1alpha1.Cluster{}, handler.EnqueueRequestsFromMapFunc(r.worksOfConsumer), builder.WithPredicates(clusterset.FitnessChanged())).
		Complete(r)
}

func dispatched(obj client.Object) bool {
	_, ok := obj.GetAnnotations()[names.EndpointSliceProvisionClusterAnnotation]
	return ok
}

func providerSliceWorks() predicate.Funcs {
	ofMCS := func(obj client.Object) bool {
		return obj.GetLabels()[names.MultiClusterServiceNameLabel] != "" && !dispatched(obj)
	}
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return ofMCS(e.Object) },
		DeleteFunc: func(e event.DeleteEvent) bool { return ofMCS(e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return !dispatched(e.ObjectNew) &&
				(e.ObjectNew.GetLabels()[names.MultiClusterServiceNameLabel] != "" || e.ObjectNew.GetLabels()[names.EndpointSliceNameLabel] != "")
		},
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// providerWorks lists the provider slice Works of the MCS namespace/name.
func (r *Reconciler) providerWorks(ctx context.Context, namespace, name string) []reconcile.Request {
	list := &workv1alpha1.WorkList{}
	if err := r.client.List(ctx, list, client.MatchingLabels{names.MultiClusterServiceNamespaceLabel: namespace, names.MultiClusterServiceNameLabel: name}); err != nil {
		log.FromContext(ctx).Error(err, "list the provider endpointslice works of a multiclusterservice", "namespace", namespace, "name", name)
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		w := &list.Items[i]
		if !dispatched(w) && collectedwork.HoldsEndpointSlice(w) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(w)})
		}
	}
	return out
}

func (r *Reconciler) worksOfMCS(ctx context.Context, mcs client.Object) []reconcile.Request {
	return r.providerWorks(ctx, mcs.GetNamespace(), mcs.GetName())
}

func (r *Reconciler) worksOfConsumer(ctx context.Context, cluster client.Object) []reconcile.Request {
	list := &networkingv1alpha1.MultiClusterServiceList{}
	if err := r.client.List(ctx, list); err != nil {
		log.FromContext(ctx).Error(err, "list multiclusterservices for a cluster event", "cluster", cluster.GetName())
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		if clusterset.Selects(list.Items[i].Spec.ConsumerClusters, cluster.GetName()) {
			out = append(out, r.providerWorks(ctx, list.Items[i].Namespace, list.Items[i].Name)...)
		}
	}
	return out
}

// Reconcile dispatches one provider slice Work, or withdraws its copies.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	work := &workv1alpha1.Work{}
	if err := r.client.Get(ctx, req.NamespacedName, work); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if dispatched(work) || !collectedwork.HoldsEndpointSlice(work) {
		return reconcile.Result{}, nil
	}
	provider, err := names.ClusterOfExecutionSpace(work.Namespace)
	if err != nil {
		return reconcile.Result{}, nil
	}
	if !work.DeletionTimestamp.IsZero() || work.Labels[names.MultiClusterServiceNameLabel] == "" {
		if err := r.removeCopies(ctx, work.Name, provider, nil); err != nil {
			return reconcile.Result{}, err
		}
		return reconcile.Result{}, collectedwork.RemoveFinalizer(ctx, r.client, work, collectedwork.MultiClusterService)
	}
	mcs := &networkingv1alpha1.MultiClusterService{}
	key := client.ObjectKey{Namespace: work.Labels[names.MultiClusterServiceNamespaceLabel], Name: work.Labels[names.MultiClusterServiceNameLabel]}
	if err := r.client.Get(ctx, key, mcs); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	err = r.dispatch(ctx, mcs, work, provider)
	return reconcile.Result{}, boundedtext.Error(errors.Join(err, r.record(ctx, mcs, err)))
}

// removeCopies deletes the copies of the provider's Work (same name, in
// the execution namespace of each cluster), except those of the clusters
// keep names.
func (r *Reconciler) removeCopies(ctx context.Context, workName, provider string, keep map[string]bool) error {
	clusters := &clusterv1alpha1.ClusterList{}
	if err := r.client.List(ctx, clusters); err != nil {
		return fmt.Errorf("list clusters: %w", err)
	}
	var errs []error
	for _, c := range clusters.Items {
		if keep[c.Name] || c.Name == provider {
			continue
		}
		w := &workv1alpha1.Work{}
		err := r.client.Get(ctx, client.ObjectKey{Namespace: names.ExecutionSpace(c.Name), Name: workName}, w)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if w.Annotations[names.EndpointSliceProvisionClusterAnnotation] != provider || !w.DeletionTimestamp.IsZero() {
			continue
		}
		if err := r.client.Delete(ctx, w); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("delete dispatched Work %s/%s: %w", w.Namespace, w.Name, err))
		}
	}
	return errors.Join(errs...)
}

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
	cached := &workv1alpha1.Work{}
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: d.Name}, cached); err != nil {
		if !apierrors.IsNotFound(err) {
			return err
		}
		cached = nil
	}
	if _, err := workwriter.Write(ctx, r.client, r.reader, d, cached); err != nil {
		return fmt.Errorf("write Work %s for consumer %s: %w", d.Key(), consumer, err)
	}
	return nil
}

// record sets EndpointSliceDispatched and emits the matching event.
func (r *Reconciler) record(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService, dispatchErr error) error {
	cond := metav1.Condition{
		Type: networkingv1alpha1.EndpointSliceDispatchedConditionType, Status: metav1.ConditionTrue,
		Reason: networkingv1alpha1.EndpointSliceDispatchedSucceedReason, Message: dispatchedMessage,
	}
	if dispatchErr != nil {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, networkingv1alpha1.EndpointSliceDispatchedFailedReason, boundedtext.Error(dispatchErr).Error()
		r.recorder.Event(mcs, corev1.EventTypeWarning, EventReasonDispatchEndpointSliceFailed, cond.Message)
	} else {
		r.recorder.Event(mcs, corev1.EventTypeNormal, EventReasonDispatchEndpointSliceSucceed, dispatchedMessage)
	}
	return multiclusterservice.SetCondition(ctx, r.client, client.ObjectKeyFromObject(mcs), cond)
}
