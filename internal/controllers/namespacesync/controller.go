package namespacesync

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/shared/eventfilter"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// RBAC: namespaces are propagated to every Cluster through Works, with the
// ClusterOverridePolicies that apply to them.
// +kubebuilder:rbac:groups=core,resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=policy.karmada.io,resources=clusteroverridepolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch;create;update

// OverrideApplier applies ClusterOverridePolicies to a manifest for one
// cluster (Karmada's override manager, COPs only).
type OverrideApplier interface {
	// ApplyClusterOverrides mutates obj with the rules of the matching
	// ClusterOverridePolicies for cluster and returns the value of the
	// policy.karmada.io/applied-cluster-overrides annotation ("" when no
	// rule applied).
	ApplyClusterOverrides(ctx context.Context, obj *unstructured.Unstructured, cluster *clusterv1alpha1.Cluster) (string, error)
}

// Options tune the controller; zero values take Karmada's defaults.
type Options struct {
	// Workers is --concurrent-namespace-syncs (default 1).
	Workers int
	// SkippedPropagatingNamespaces is --skipped-propagating-namespaces
	// (default kube-.*).
	SkippedPropagatingNamespaces []string
	// Overrides applies ClusterOverridePolicies; nil applies none.
	Overrides OverrideApplier
}

// Reconciler is the namespace sync controller.
type Reconciler struct {
	client client.Client
	// reader reads Works fresh from the API server on conflicts.
	reader client.Reader
	opts   Options
	skip   *skipper
}

// New returns a namespace sync controller; SetupWithManager wires it.
func New(opts Options) (*Reconciler, error) {
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	if opts.SkippedPropagatingNamespaces == nil {
		opts.SkippedPropagatingNamespaces = []string{"kube-.*"}
	}
	skip, err := newSkipper(opts.SkippedPropagatingNamespaces)
	if err != nil {
		return nil, err
	}
	return &Reconciler{opts: opts, skip: skip}, nil
}

// SetupWithManager registers the controller with mgr.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.client = mgr.GetClient()
	r.reader = mgr.GetAPIReader()
	return ctrl.NewControllerManagedBy(mgr).Named(names.NamespaceSyncControllerName).
		For(&corev1.Namespace{}, namespaceChanges()).
		Watches(&clusterv1alpha1.Cluster{}, r.allNamespaces(), builder.WithPredicates(eventfilter.Only(eventfilter.Creates))).
		Watches(policySource(), r.policyNamespaces()).
		Watches(workSource(), workOwner(mgr), builder.WithPredicates(eventfilter.Only(eventfilter.Deletes))).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.opts.Workers}).
		Complete(r)
}

// Reconcile writes the Works of one namespace for every cluster.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if r.skip.skipName(req.Name) {
		return ctrl.Result{}, nil
	}
	ctx = logr.NewContext(ctx, log.FromContext(ctx).WithValues("namespace", klog.KRef("", req.Name)))
	ns := &corev1.Namespace{}
	if err := r.client.Get(ctx, req.NamespacedName, ns); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("get namespace %s: %w", req.Name, err)
	}
	if r.skip.skip(ns) {
		return ctrl.Result{}, nil
	}
	clusters := &clusterv1alpha1.ClusterList{}
	if err := r.client.List(ctx, clusters); err != nil {
		return ctrl.Result{}, fmt.Errorf("namespace %s: list clusters: %w", ns.Name, err)
	}
	return ctrl.Result{}, r.syncClusters(ctx, ns, clusters.Items)
}

// syncClusters writes the namespace's Work in every cluster in parallel,
// whatever the cluster's readiness or sync mode. Clusters being deleted are
// skipped: their execution namespace is going away.
func (r *Reconciler) syncClusters(ctx context.Context, ns *corev1.Namespace, clusters []clusterv1alpha1.Cluster) error {
	errs := make([]error, len(clusters))
	var wg sync.WaitGroup
	for i := range clusters {
		c := &clusters[i]
		if !c.DeletionTimestamp.IsZero() {
			continue
		}
		wg.Go(func() { errs[i] = r.syncWork(ctx, ns, c) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
