// Package multiclusterservice is Karmada's multiclusterservice-controller
// ("multiclusterservice", behind the MultiClusterService gate). For each
// MultiClusterService of type CrossCluster it:
//   - writes a suspended marker Work holding the MCS into each provider
//     cluster's execution namespace, which tells the collect controller to
//     watch that cluster's EndpointSlices;
//   - claims the Service of the same name (the detector then leaves it)
//     and binds it, through the ResourceBinding <service>-service, to the
//     providers and consumers;
//   - records the outcome in the ServiceApplied condition.
//
// On deletion it withdraws the collected Works, removes the marker Works
// and un-claims the Service (the binding stays, as on policy deletion).
package multiclusterservice

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/pkg/boundedtext"
	"github.com/propel-mc/propel/pkg/controllermanager/recorder"
	"github.com/propel-mc/propel/pkg/mcs/clusterset"
	"github.com/propel-mc/propel/pkg/mcs/collectedwork"
	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/pkg/templatebinding"
	"github.com/propel-mc/propel/pkg/workwriter"
)

// RBAC: a MultiClusterService gets its finalizer (patch) and status; its
// Service is claimed (update) and gets a ResourceBinding; marker Works are
// written and deleted.
// +kubebuilder:rbac:groups=networking.karmada.io,resources=multiclusterservices,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=networking.karmada.io,resources=multiclusterservices/status,verbs=update
// +kubebuilder:rbac:groups=core,resources=services,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings,verbs=get;list;watch;create;update
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch;create;update;delete

// Event reasons (Karmada's), on the MultiClusterService.
const (
	EventReasonSyncServiceSucceed = "SyncServiceSucceed"
	EventReasonSyncServiceFailed  = clusterset.EventReasonSyncServiceFailed
)

const serviceAppliedMessage = "Service is propagated to target clusters."

// Reconciler keeps the marker Works, the claim and the binding of each
// MultiClusterService; its requests are MultiClusterServices.
type Reconciler struct {
	client   client.Client
	reader   client.Reader
	recorder record.EventRecorder
}

// New returns the controller; SetupWithManager wires it.
func New() *Reconciler { return &Reconciler{} }

// SetupWithManager registers the controller with mgr: CrossCluster MCS
// changes, changes of the Service of the same name, and every Cluster
// event (for the MCSs that select the cluster).
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	r.client, r.reader = mgr.GetClient(), mgr.GetAPIReader()
	r.recorder = recorder.For(mgr, names.MultiClusterServiceControllerName)
	return builder.ControllerManagedBy(mgr).Named(names.MultiClusterServiceControllerName).
		For(&networkingv1alpha1.MultiClusterService{}, builder.WithPredicates(crossClusterChanges())).
		Watches(&corev1.Service{}, handler.EnqueueRequestsFromMapFunc(r.mcsOfService), builder.WithPredicates(serviceChanges())).
		Watches(&clusterv1alpha1.Cluster{}, handler.EnqueueRequestsFromMapFunc(r.mcsSelecting), builder.WithPredicates(clusterset.FitnessChanged())).
		Complete(r)
}

func crossClusterChanges() predicate.Funcs {
	cross := func(obj client.Object) bool {
		mcs, ok := obj.(*networkingv1alpha1.MultiClusterService)
		return ok && clusterset.HasCrossCluster(mcs)
	}
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return cross(e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*networkingv1alpha1.MultiClusterService)
			n, ok2 := e.ObjectNew.(*networkingv1alpha1.MultiClusterService)
			if !ok1 || !ok2 || (!cross(o) && !cross(n)) {
				return false
			}
			return !apiequality.Semantic.DeepEqual(o.Annotations, n.Annotations) || !apiequality.Semantic.DeepEqual(o.Spec, n.Spec) ||
				o.DeletionTimestamp.IsZero() != n.DeletionTimestamp.IsZero() ||
				!apiequality.Semantic.DeepEqual(o.Labels, n.Labels) || !apiequality.Semantic.DeepEqual(o.Finalizers, n.Finalizers)
		},
		DeleteFunc: func(event.DeleteEvent) bool { return false },
	}
}

func serviceChanges() predicate.Funcs {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*corev1.Service)
		n, ok2 := e.ObjectNew.(*corev1.Service)
		return !ok1 || !ok2 || !apiequality.Semantic.DeepEqual(o.Labels, n.Labels) ||
			!apiequality.Semantic.DeepEqual(o.Annotations, n.Annotations) || !apiequality.Semantic.DeepEqual(o.Spec, n.Spec)
	}}
}

func (r *Reconciler) mcsOfService(ctx context.Context, svc client.Object) []reconcile.Request {
	mcs := &networkingv1alpha1.MultiClusterService{}
	if err := r.client.Get(ctx, client.ObjectKeyFromObject(svc), mcs); err != nil || !clusterset.HasCrossCluster(mcs) {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKeyFromObject(mcs)}}
}

func (r *Reconciler) mcsSelecting(ctx context.Context, cluster client.Object) []reconcile.Request {
	list := &networkingv1alpha1.MultiClusterServiceList{}
	if err := r.client.List(ctx, list); err != nil {
		log.FromContext(ctx).Error(err, "list multiclusterservices for a cluster event", "cluster", cluster.GetName())
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		mcs := &list.Items[i]
		if clusterset.HasCrossCluster(mcs) && (clusterset.Selects(mcs.Spec.ProviderClusters, cluster.GetName()) || clusterset.Selects(mcs.Spec.ConsumerClusters, cluster.GetName())) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(mcs)})
		}
	}
	return out
}

// Reconcile runs the phases: withdraw (deleted, or no longer
// CrossCluster), own (finalizer and permanent id), marker Works, claim,
// binding; then records ServiceApplied.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	mcs := &networkingv1alpha1.MultiClusterService{}
	if err := r.client.Get(ctx, req.NamespacedName, mcs); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !mcs.DeletionTimestamp.IsZero() || !clusterset.HasCrossCluster(mcs) {
		err := r.withdraw(ctx, mcs)
		if err != nil {
			r.recorder.Event(mcs, corev1.EventTypeWarning, EventReasonSyncServiceFailed, boundedtext.Error(err).Error())
		}
		return reconcile.Result{}, err
	}
	err := r.sync(ctx, mcs)
	if statusErr := r.recordApplied(ctx, mcs, err); statusErr != nil && err == nil {
		err = statusErr
	}
	return reconcile.Result{}, boundedtext.Error(err)
}

func (r *Reconciler) sync(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService) error {
	if err := r.own(ctx, mcs); err != nil {
		return err
	}
	providers, err := clusterset.Names(ctx, r.client, mcs.Spec.ProviderClusters)
	if err != nil {
		return err
	}
	if err := r.writeMarkerWorks(ctx, mcs, providers); err != nil {
		return err
	}
	svc := &corev1.Service{}
	if err := r.client.Get(ctx, client.ObjectKeyFromObject(mcs), svc); err != nil {
		return fmt.Errorf("get service %s/%s: %w", mcs.Namespace, mcs.Name, err)
	}
	if err := r.claim(ctx, mcs, svc); err != nil {
		return err
	}
	consumers, err := clusterset.Names(ctx, r.client, mcs.Spec.ConsumerClusters)
	if err != nil {
		return err
	}
	return r.bind(ctx, mcs, svc, union(providers, consumers))
}

// own adds the finalizer and, since Propel has no mutating webhook, the
// permanent id Karmada's webhook would have set.
func (r *Reconciler) own(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService) error {
	if controllerutil.ContainsFinalizer(mcs, names.MultiClusterServiceControllerFinalizer) && mcs.Labels[names.MultiClusterServicePermanentIDLabel] != "" {
		return nil
	}
	patched := mcs.DeepCopy()
	controllerutil.AddFinalizer(patched, names.MultiClusterServiceControllerFinalizer)
	if patched.Labels[names.MultiClusterServicePermanentIDLabel] == "" {
		if patched.Labels == nil {
			patched.Labels = map[string]string{}
		}
		patched.Labels[names.MultiClusterServicePermanentIDLabel] = uuid.NewString()
	}
	if err := r.client.Patch(ctx, patched, client.MergeFromWithOptions(mcs, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("add finalizer and permanent id: %w", err)
	}
	*mcs = *patched
	return nil
}

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
	cached := &workv1alpha1.Work{}
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: d.Name}, cached); err != nil {
		if !apierrors.IsNotFound(err) {
			return err
		}
		cached = nil
	}
	if _, err := workwriter.Write(ctx, r.client, r.reader, d, cached); err != nil {
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
		delete(updated.Labels, names.PropagationPolicyPermanentIDLabel)
		delete(updated.Labels, names.ClusterPropagationPolicyPermanentIDLabel)
		delete(updated.Annotations, names.PropagationPolicyNameAnnotation)
		delete(updated.Annotations, names.PropagationPolicyNamespaceAnnotation)
		delete(updated.Annotations, names.ClusterPropagationPolicyNameAnnotation)
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

// bind creates or updates the binding <service>-service that places the
// Service (Duplicated) in clusters.
func (r *Reconciler) bind(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService, svc *corev1.Service, clusters []string) error {
	name := names.BindingName("Service", svc.Name)
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
		err := r.client.Get(ctx, client.ObjectKey{Namespace: svc.Namespace, Name: name}, current)
		if apierrors.IsNotFound(err) {
			rb := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace, Name: name, Labels: labels, Annotations: annotations}}
			spec(rb)
			if err := r.client.Create(ctx, rb); err != nil {
				return fmt.Errorf("create resourcebinding %s/%s: %w", svc.Namespace, name, err)
			}
			return nil
		}
		if err != nil {
			return err
		}
		if c := metav1.GetControllerOf(current); c != nil && c.UID != svc.UID {
			return fmt.Errorf("resourcebinding %s/%s is controlled by another object (uid %s); waiting for garbage collection", svc.Namespace, name, c.UID)
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
			return fmt.Errorf("update resourcebinding %s/%s: %w", svc.Namespace, name, err)
		}
		return nil
	})
}

// withdraw un-claims the Service, withdraws the collected Works and
// removes the marker Works, then releases the MCS.
func (r *Reconciler) withdraw(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService) error {
	if err := r.unclaim(ctx, mcs); err != nil {
		return err
	}
	works, err := r.markerWorks(ctx, mcs)
	if err != nil {
		return err
	}
	var errs []error
	for i := range works {
		errs = append(errs, r.removeMarkerWork(ctx, mcs, &works[i]))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if !controllerutil.ContainsFinalizer(mcs, names.MultiClusterServiceControllerFinalizer) {
		return nil
	}
	patched := mcs.DeepCopy()
	controllerutil.RemoveFinalizer(patched, names.MultiClusterServiceControllerFinalizer)
	if err := r.client.Patch(ctx, patched, client.MergeFromWithOptions(mcs, client.MergeFromWithOptimisticLock{})); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("remove finalizer: %w", err))
	}
	return nil
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

// recordApplied sets ServiceApplied and emits the matching event.
func (r *Reconciler) recordApplied(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService, syncErr error) error {
	cond := metav1.Condition{
		Type: networkingv1alpha1.ServiceAppliedConditionType, Status: metav1.ConditionTrue,
		Reason: networkingv1alpha1.ServiceAppliedSucceedReason, Message: serviceAppliedMessage,
	}
	if syncErr != nil {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, networkingv1alpha1.ServiceAppliedFailedReason, boundedtext.Error(syncErr).Error()
		r.recorder.Event(mcs, corev1.EventTypeWarning, EventReasonSyncServiceFailed, cond.Message)
	} else {
		r.recorder.Event(mcs, corev1.EventTypeNormal, EventReasonSyncServiceSucceed, serviceAppliedMessage)
	}
	return SetCondition(ctx, r.client, client.ObjectKeyFromObject(mcs), cond)
}

// SetCondition writes one condition of an MCS's status when it changed;
// the dispatch controller writes the other one.
func SetCondition(ctx context.Context, c client.Client, key client.ObjectKey, cond metav1.Condition) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		mcs := &networkingv1alpha1.MultiClusterService{}
		if err := c.Get(ctx, key, mcs); err != nil {
			return client.IgnoreNotFound(err)
		}
		if !meta.SetStatusCondition(&mcs.Status.Conditions, cond) {
			return nil
		}
		return c.Status().Update(ctx, mcs)
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
