package membercluster

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// InformerControllerName names the controller that stops member informers.
const InformerControllerName = "member-informers"

// SetupWithManager adds the controller that keeps the informers in line
// with the Clusters: the member-object set and the Node and Pod informers
// of a cluster are stopped when its Cluster is gone or turns to Pull mode
// (the member-object set already when its deletion starts), and the
// member-object set is rebuilt when the Cluster's clients change. It also stops every informer when the manager stops.
// skipNameValidation lets tests run several managers in one process.
func (i *Informers) SetupWithManager(mgr ctrl.Manager, clients ClientSource, skipNameValidation bool) error {
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		i.StopAll()
		return nil
	})); err != nil {
		return err
	}
	r := &informerReconciler{informers: i, clients: clients, reader: mgr.GetClient()}
	return ctrl.NewControllerManagedBy(mgr).Named(InformerControllerName).
		For(&clusterv1alpha1.Cluster{}).
		WithOptions(controller.Options{SkipNameValidation: &skipNameValidation}).
		Complete(r)
}

type informerReconciler struct {
	informers *Informers
	clients   ClientSource
	reader    client.Reader
}

func (r *informerReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	set := r.informers.Lookup(req.Name)
	if set == nil && r.informers.LookupNodesAndPods(req.Name) == nil {
		return reconcile.Result{}, nil
	}
	cluster := &clusterv1alpha1.Cluster{}
	err := r.reader.Get(ctx, req.NamespacedName, cluster)
	if apierrors.IsNotFound(err) || (err == nil && cluster.Spec.SyncMode == clusterv1alpha1.Pull) {
		log.FromContext(ctx).Info("stopping member informers", "cluster", klog.KRef("", req.Name))
		r.informers.Stop(req.Name)
		return reconcile.Result{}, nil
	}
	if err == nil && !cluster.DeletionTimestamp.IsZero() {
		// Cluster status keeps reporting until the Cluster is gone, so the
		// Node and Pod informers run until then.
		if set != nil {
			log.FromContext(ctx).Info("stopping member object informers of a deleting cluster", "cluster", klog.KRef("", req.Name))
			r.informers.stopMemberObjects(req.Name)
		}
		return reconcile.Result{}, nil
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	// The Node and Pod informers follow the connection, not the clients:
	// their reader restarts them when it changed (NodesAndPods).
	if set == nil {
		return reconcile.Result{}, nil
	}
	m, err := r.clients.ForCluster(ctx, cluster)
	if err != nil {
		return reconcile.Result{}, err
	}
	if m != set.Member() {
		log.FromContext(ctx).Info("member clients changed, restarting informers", "cluster", klog.KRef("", req.Name))
		r.informers.For(m)
	}
	return reconcile.Result{}, nil
}
