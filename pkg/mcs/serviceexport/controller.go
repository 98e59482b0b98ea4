// Package serviceexport is Karmada's service-export-controller
// ("serviceExport"): once a ServiceExport is applied to a Push member
// cluster, it watches that member's ServiceExports and EndpointSlices and
// reports each EndpointSlice of an exported Service back to the control
// plane as a suspended Work (pkg/mcs/collectedwork), and withdraws the
// Works when the slice or the export goes away.
package serviceexport

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	mcsv1alpha1 "github.com/propel-mc/propel/pkg/apis/multicluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/pkg/boundedtext"
	"github.com/propel-mc/propel/pkg/mcs/collectedwork"
	"github.com/propel-mc/propel/pkg/mcs/memberwatch"
	"github.com/propel-mc/propel/pkg/membercluster"
	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/pkg/workcluster"
)

// RBAC: exports are found through Works and their Clusters (the member's
// ServiceExports and EndpointSlices are read with the member's credentials).
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch

// memberObjectsControllerName names the second queue of the controller,
// the member objects' keys.
const memberObjectsControllerName = names.ServiceExportControllerName + "-member-objects"

// Reconciler starts the member watches from applied ServiceExport Works
// and reconciles the member objects' keys.
type Reconciler struct {
	client  client.Client
	reader  client.Reader
	watcher *memberwatch.Watcher
}

// New returns the controller; SetupWithManager wires it.
func New(clients membercluster.ClientSource, informers *membercluster.Informers, syncTimeout time.Duration) *Reconciler {
	return &Reconciler{watcher: &memberwatch.Watcher{
		Owner: names.ServiceExportControllerName, Clients: clients, Informers: informers, SyncTimeout: syncTimeout,
	}}
}

// SetupWithManager registers two controllers with mgr: one over the
// dispatched Works of Push clusters that hold a ServiceExport, one over
// the member objects' keys. The second also receives, for each collected
// Work of the ServiceExport path in the initial list of Works, the key of
// its ServiceExport: an export deleted while Propel was down is then
// withdrawn at start-up.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	r.client, r.reader = mgr.GetClient(), mgr.GetAPIReader()
	err := builder.ControllerManagedBy(mgr).Named(names.ServiceExportControllerName).
		For(&workv1alpha1.Work{}, builder.WithPredicates(exportWorks(), workcluster.PushPredicate(mgr.GetClient()))).
		Watches(&clusterv1alpha1.Cluster{}, workcluster.EnqueueWorksOnReadiness(mgr.GetClient())).
		Complete(reconcile.Func(r.reconcileWork))
	if err != nil {
		return err
	}
	return builder.TypedControllerManagedBy[memberwatch.Key](mgr).Named(memberObjectsControllerName).
		WatchesRawSource(r.watcher.Source()).
		WatchesRawSource(source.TypedKind(mgr.GetCache(), &workv1alpha1.Work{}, exportKeysOfCollectedWorks(), onlyCreate[*workv1alpha1.Work]())).
		Complete(reconcile.TypedFunc[memberwatch.Key](r.reconcileKey))
}

// exportWorks passes live, dispatched Works that hold a ServiceExport.
func exportWorks() predicate.Funcs {
	return predicate.NewPredicateFuncs(func(obj client.Object) bool {
		work, ok := obj.(*workv1alpha1.Work)
		return ok && !suspended(work) && collectedwork.Holds(work, mcsv1alpha1.GroupVersion.Group, memberwatch.KindServiceExport)
	})
}

func suspended(work *workv1alpha1.Work) bool {
	return work.Spec.SuspendDispatching != nil && *work.Spec.SuspendDispatching
}

// exportKeysOfCollectedWorks maps a newly seen collected Work of the
// ServiceExport path to its export's key.
func exportKeysOfCollectedWorks() handler.TypedEventHandler[*workv1alpha1.Work, memberwatch.Key] {
	return handler.TypedEnqueueRequestsFromMapFunc(func(_ context.Context, work *workv1alpha1.Work) []memberwatch.Key {
		if !suspended(work) || !collectedwork.IsManagedBy(work, collectedwork.ServiceExport) {
			return nil
		}
		cluster, err := names.ClusterOfExecutionSpace(work.Namespace)
		ns, name := work.Labels[names.EndpointSliceNamespaceLabel], work.Labels[names.EndpointSliceNameLabel]
		if err != nil || ns == "" || name == "" {
			return nil
		}
		return []memberwatch.Key{{Cluster: cluster, Kind: memberwatch.KindServiceExport, Namespace: ns, Name: name}}
	})
}

func onlyCreate[T client.Object]() predicate.TypedPredicate[T] {
	return predicate.TypedFuncs[T]{
		UpdateFunc:  func(event.TypedUpdateEvent[T]) bool { return false },
		DeleteFunc:  func(event.TypedDeleteEvent[T]) bool { return false },
		GenericFunc: func(event.TypedGenericEvent[T]) bool { return false },
	}
}

// reconcileWork starts watching the member's ServiceExports and
// EndpointSlices once a ServiceExport Work is applied there.
func (r *Reconciler) reconcileWork(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	work := &workv1alpha1.Work{}
	if err := r.client.Get(ctx, req.NamespacedName, work); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !work.DeletionTimestamp.IsZero() || !meta.IsStatusConditionTrue(work.Status.Conditions, workv1alpha1.WorkApplied) {
		return reconcile.Result{}, nil
	}
	cluster, err := workcluster.Get(ctx, r.client, work.Namespace)
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !workcluster.IsReady(cluster) {
		return reconcile.Result{}, fmt.Errorf("work %s/%s: cluster %s is not ready", work.Namespace, work.Name, cluster.Name)
	}
	_, err = r.watcher.Caches(ctx, cluster, memberwatch.ServiceExports, memberwatch.EndpointSlices)
	return reconcile.Result{}, boundedtext.Error(err)
}

// reconcileKey reports or withdraws the slices a member object event
// concerns.
func (r *Reconciler) reconcileKey(ctx context.Context, key memberwatch.Key) (reconcile.Result, error) {
	caches, err := r.watcher.ClusterCaches(ctx, r.client, key.Cluster, memberwatch.ServiceExports, memberwatch.EndpointSlices)
	if err != nil || caches == nil {
		return reconcile.Result{}, boundedtext.Error(err)
	}
	switch key.Kind {
	case memberwatch.KindServiceExport:
		err = r.syncExport(ctx, caches, key)
	case memberwatch.KindEndpointSlice:
		err = r.syncSlice(ctx, caches, key)
	}
	return reconcile.Result{}, boundedtext.Error(err)
}

// syncExport reports every slice of an exported Service and withdraws
// the Works of slices that are gone; or withdraws every Work of an export
// that is gone.
func (r *Reconciler) syncExport(ctx context.Context, caches *memberwatch.Caches, key memberwatch.Key) error {
	export, err := caches.Get(memberwatch.ServiceExports, key.Namespace, key.Name)
	if err != nil {
		return err
	}
	works, err := r.collectedWorks(ctx, key.Cluster, key.Namespace, key.Name)
	if err != nil {
		return err
	}
	if export == nil {
		return r.clean(ctx, works, nil)
	}
	slices, err := caches.List(memberwatch.EndpointSlices, key.Namespace, labels.SelectorFromSet(labels.Set{names.KubeServiceNameLabel: key.Name}))
	if err != nil {
		return err
	}
	current := make(map[string]bool, len(slices))
	for _, s := range slices {
		current[collectedwork.WorkName(s.GetNamespace(), s.GetName())] = true
	}
	errs := []error{r.clean(ctx, works, current)}
	for _, s := range slices {
		if collectedwork.IsKarmadaManaged(s) {
			continue
		}
		errs = append(errs, collectedwork.Report(ctx, r.client, r.reader, key.Cluster, key.Name, s, collectedwork.ServiceExport))
	}
	return errors.Join(errs...)
}

// collectedWorks lists the cluster's collected Works of the ServiceExport
// path for the Service namespace/name.
func (r *Reconciler) collectedWorks(ctx context.Context, cluster, namespace, name string) ([]workv1alpha1.Work, error) {
	works := &workv1alpha1.WorkList{}
	err := r.client.List(ctx, works, client.InNamespace(names.ExecutionSpace(cluster)),
		client.MatchingLabels{names.EndpointSliceNamespaceLabel: namespace, names.EndpointSliceNameLabel: name})
	if err != nil {
		return nil, fmt.Errorf("list collected Works of service %s/%s in cluster %s: %w", namespace, name, cluster, err)
	}
	out := works.Items[:0]
	for _, w := range works.Items {
		if collectedwork.IsCollected(&w, collectedwork.ServiceExport) {
			out = append(out, w)
		}
	}
	return out, nil
}

// clean withdraws the path from each Work whose name keep lacks.
func (r *Reconciler) clean(ctx context.Context, works []workv1alpha1.Work, keep map[string]bool) error {
	var errs []error
	for i := range works {
		if keep[works[i].Name] {
			continue
		}
		errs = append(errs, collectedwork.Clean(ctx, r.client, &works[i], collectedwork.ServiceExport))
	}
	return errors.Join(errs...)
}

// syncSlice reports a slice of an exported Service, or withdraws the Work
// of a slice that is gone.
func (r *Reconciler) syncSlice(ctx context.Context, caches *memberwatch.Caches, key memberwatch.Key) error {
	slice, err := caches.Get(memberwatch.EndpointSlices, key.Namespace, key.Name)
	if err != nil {
		return err
	}
	if slice == nil {
		work := &workv1alpha1.Work{}
		err := r.client.Get(ctx, types.NamespacedName{Namespace: names.ExecutionSpace(key.Cluster), Name: collectedwork.WorkName(key.Namespace, key.Name)}, work)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if !collectedwork.IsCollected(work, collectedwork.ServiceExport) {
			return nil
		}
		return collectedwork.Clean(ctx, r.client, work, collectedwork.ServiceExport)
	}
	if collectedwork.IsKarmadaManaged(slice) {
		return nil
	}
	service := slice.GetLabels()[names.KubeServiceNameLabel]
	if service == "" {
		return nil
	}
	export, err := caches.Get(memberwatch.ServiceExports, key.Namespace, service)
	if err != nil || export == nil {
		return err
	}
	return collectedwork.Report(ctx, r.client, r.reader, key.Cluster, service, slice, collectedwork.ServiceExport)
}
