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

// SetupWithManager adds the controller that keeps the informer sets in
// line with the Clusters: a set is stopped when its Cluster is deleted or
// turns to Pull mode, and rebuilt when the Cluster's clients change. It also
// stops every set when the manager stops. skipNameValidation lets tests run
// several managers in one process.
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
	if set == nil {
		return reconcile.Result{}, nil
	}
	cluster := &clusterv1alpha1.Cluster{}
	err := r.reader.Get(ctx, req.NamespacedName, cluster)
	if apierrors.IsNotFound(err) || (err == nil && (!cluster.DeletionTimestamp.IsZero() || cluster.Spec.SyncMode == clusterv1alpha1.Pull)) {
		log.FromContext(ctx).Info("stopping member informers", "cluster", klog.KRef("", req.Name))
		r.informers.Stop(req.Name)
		return reconcile.Result{}, nil
	}
	if err != nil {
		return reconcile.Result{}, err
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
