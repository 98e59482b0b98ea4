package unifiedauth

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/eventfilter"
	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// RBAC: Clusters and karmada-apiserver's ClusterRoles and
// ClusterRoleBindings are read; the member RBAC goes out as Works (see
// internal/shared/workwriter), controlled by their Cluster.
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterroles;clusterrolebindings,verbs=get;list;watch
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch;create;update

// Recorder records events; record.EventRecorder is one.
type Recorder interface {
	Event(object runtime.Object, eventtype, reason, message string)
}

// Deps are the controller's collaborators.
type Deps struct {
	// Client reads Clusters, ClusterRoles, ClusterRoleBindings and Works
	// from the manager's cache and writes Works.
	Client client.Client
	// APIReader reads a Work fresh when an update conflicts.
	APIReader client.Reader
	// Recorder records the sync events on Clusters.
	Recorder Recorder
}

// Options tune the controller; zero values take Karmada's defaults.
type Options struct {
	// RateLimiter paces retries (default: controller-runtime's).
	RateLimiter workqueue.TypedRateLimiter[reconcile.Request]
	// SkipNameValidation lets tests run several managers in one process.
	SkipNameValidation bool
}

// Reconciler is the unified-auth controller; its requests are Clusters.
type Reconciler struct {
	client   client.Client
	reader   client.Reader
	recorder Recorder
	opts     Options
}

// New returns the controller; SetupWithManager wires it.
func New(deps Deps, opts Options) *Reconciler {
	return &Reconciler{client: deps.Client, reader: deps.APIReader, recorder: deps.Recorder, opts: opts}
}

// SetupWithManager registers the controller: Clusters when created (or
// when their impersonator Secret changes), and every ClusterRole and
// ClusterRoleBinding change, mapped to the clusters whose proxy it grants.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return builder.ControllerManagedBy(mgr).Named(names.UnifiedAuthControllerName).
		For(&clusterv1alpha1.Cluster{}, builder.WithPredicates(clusterChanges())).
		Watches(&rbacv1.ClusterRole{}, handler.EnqueueRequestsFromMapFunc(r.clusterRoleClusters)).
		Watches(&rbacv1.ClusterRoleBinding{}, handler.EnqueueRequestsFromMapFunc(r.clusterRoleBindingClusters)).
		WithOptions(controller.Options{RateLimiter: r.opts.RateLimiter, SkipNameValidation: &r.opts.SkipNameValidation}).
		Complete(r)
}

// clusterChanges passes Cluster creations, as Karmada does, and updates
// that change the impersonator Secret reference, whose namespace is the
// bound ServiceAccount's.
func clusterChanges() predicate.Funcs {
	return eventfilter.UpdatesOf(func(o, n *clusterv1alpha1.Cluster) bool {
		return !equality.Semantic.DeepEqual(o.Spec.ImpersonatorSecretRef, n.Spec.ImpersonatorSecretRef)
	}, eventfilter.Creates)
}

// clusterRoleClusters maps a ClusterRole (either side of an update) to
// the clusters whose proxy it grants.
func (r *Reconciler) clusterRoleClusters(ctx context.Context, obj client.Object) []reconcile.Request {
	role, ok := obj.(*rbacv1.ClusterRole)
	if !ok {
		return nil
	}
	return r.requestsFor(ctx, role)
}

// clusterRoleBindingClusters maps a ClusterRoleBinding to the clusters
// whose proxy its ClusterRole grants. A binding whose role is gone grants
// nothing, so changes nothing.
func (r *Reconciler) clusterRoleBindingClusters(ctx context.Context, obj client.Object) []reconcile.Request {
	binding, ok := obj.(*rbacv1.ClusterRoleBinding)
	if !ok || binding.RoleRef.Kind != "ClusterRole" {
		return nil
	}
	role := &rbacv1.ClusterRole{}
	if err := r.client.Get(ctx, client.ObjectKey{Name: binding.RoleRef.Name}, role); err != nil {
		if client.IgnoreNotFound(err) != nil {
			log.FromContext(ctx).Error(err, "failed to get the role of a cluster role binding",
				"clusterRoleBinding", klog.KObj(binding), "clusterRole", klog.KRef("", binding.RoleRef.Name))
		}
		return nil
	}
	return r.requestsFor(ctx, role)
}

func (r *Reconciler) requestsFor(ctx context.Context, role *rbacv1.ClusterRole) []reconcile.Request {
	clusters := &clusterv1alpha1.ClusterList{}
	if err := r.client.List(ctx, clusters); err != nil {
		log.FromContext(ctx).Error(err, "failed to list clusters for a cluster role", "clusterRole", klog.KObj(role))
		return nil
	}
	all := make([]string, 0, len(clusters.Items))
	for i := range clusters.Items {
		all = append(all, clusters.Items[i].Name)
	}
	affected := affectedClusters(role, all)
	requests := make([]reconcile.Request, 0, len(affected))
	for _, name := range affected {
		requests = append(requests, reconcile.Request{NamespacedName: types.NamespacedName{Name: name}})
	}
	return requests
}
