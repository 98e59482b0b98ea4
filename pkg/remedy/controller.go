package remedy

import (
	"context"
	"fmt"
	"slices"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	remedyv1alpha1 "github.com/propel-mc/propel/pkg/apis/remedy/v1alpha1"
	"github.com/propel-mc/propel/pkg/names"
)

// RBAC: Remedies are read; their actions go into Cluster status (patch).
// +kubebuilder:rbac:groups=remedy.karmada.io,resources=remedies,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters/status,verbs=patch

// Reconciler is the remedy controller; its requests are Clusters.
type Reconciler struct {
	client client.Client
}

// New returns the controller; SetupWithManager wires it.
func New() *Reconciler { return &Reconciler{} }

// SetupWithManager registers the controller with mgr.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	r.client = mgr.GetClient()
	return builder.ControllerManagedBy(mgr).Named(names.RemedyControllerName).
		For(&clusterv1alpha1.Cluster{}, builder.WithPredicates(clusterChanges())).
		Watches(&remedyv1alpha1.Remedy{}, r.remedyClusters()).
		Complete(r)
}

// clusterChanges passes Cluster updates that change the conditions or the
// remedy actions; creations and deletions are left to the Remedy events,
// as in Karmada.
func clusterChanges() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*clusterv1alpha1.Cluster)
			n, ok2 := e.ObjectNew.(*clusterv1alpha1.Cluster)
			if !ok1 || !ok2 {
				return false
			}
			return !apiequality.Semantic.DeepEqual(o.Status.Conditions, n.Status.Conditions) ||
				!slices.Equal(o.Status.RemedyActions, n.Status.RemedyActions)
		},
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// remedyClusters maps a Remedy event to the clusters it names, or to every
// cluster when its clusterAffinity is unset (on either side of an update).
func (r *Reconciler) remedyClusters() handler.EventHandler {
	enqueue := func(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request], objs ...client.Object) {
		var clusters []string
		for _, obj := range objs {
			rm, ok := obj.(*remedyv1alpha1.Remedy)
			if !ok {
				continue
			}
			if rm.Spec.ClusterAffinity == nil {
				all, err := r.allClusters(ctx)
				if err != nil {
					log.FromContext(ctx).Error(err, "failed to list clusters for remedy", "remedy", klog.KObj(rm))
					return
				}
				clusters = all
				break
			}
			clusters = append(clusters, rm.Spec.ClusterAffinity.ClusterNames...)
		}
		for _, name := range clusters {
			q.Add(reconcile.Request{NamespacedName: client.ObjectKey{Name: name}})
		}
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, q, e.Object)
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, q, e.ObjectOld, e.ObjectNew)
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(ctx, q, e.Object)
		},
	}
}

func (r *Reconciler) allClusters(ctx context.Context) ([]string, error) {
	var list clusterv1alpha1.ClusterList
	if err := r.client.List(ctx, &list); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, list.Items[i].Name)
	}
	return out, nil
}

// Reconcile writes the cluster's remedyActions when they changed.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	logger := log.FromContext(ctx).WithValues("cluster", klog.KRef("", req.Name))
	cluster := &clusterv1alpha1.Cluster{}
	if err := r.client.Get(ctx, req.NamespacedName, cluster); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if cluster.DeletionTimestamp != nil {
		return reconcile.Result{}, nil
	}
	var remedies remedyv1alpha1.RemedyList
	if err := r.client.List(ctx, &remedies); err != nil {
		return reconcile.Result{}, fmt.Errorf("list remedies: %w", err)
	}
	want := actions(remedies.Items, cluster.Name, cluster.Status.Conditions)
	if slices.Equal(want, cluster.Status.RemedyActions) {
		return reconcile.Result{}, nil
	}
	patch := client.MergeFrom(cluster.DeepCopy())
	cluster.Status.RemedyActions = want
	if err := r.client.Status().Patch(ctx, cluster, patch); err != nil {
		return reconcile.Result{}, fmt.Errorf("patch remedyActions of cluster %s: %w", cluster.Name, err)
	}
	logger.V(2).Info("updated remedy actions", "remedyActions", want)
	return reconcile.Result{}, nil
}
