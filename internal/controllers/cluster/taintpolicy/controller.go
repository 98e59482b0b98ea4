package taintpolicy

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/app/controllermanager/recorder"
	"github.com/propel-mc/propel/internal/controllers/cluster/taints"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/eventfilter"
	"github.com/propel-mc/propel/internal/shared/liveobject"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

// RBAC: ClusterTaintPolicies are read; Clusters get their taints (patch).
// +kubebuilder:rbac:groups=policy.karmada.io,resources=clustertaintpolicies,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch;patch

// ControllerName is Karmada's name for the controller (events' source,
// controller-runtime metrics).
const ControllerName = "cluster-taint-policy-controller"

// Event reasons the controller records on a Cluster (Karmada's; the
// cluster-controller records the same ones for its NoSchedule taints).
const (
	EventReasonTaintClusterSucceed = "TaintClusterSucceed"
	EventReasonTaintClusterFailed  = "TaintClusterFailed"
)

type requestQueue = workqueue.TypedRateLimitingInterface[reconcile.Request]

// Reconciler is the cluster-taint-policy controller.
type Reconciler struct {
	client   client.Client
	recorder record.EventRecorder
	now      func() time.Time
}

// New returns the controller; SetupWithManager wires it.
func New() *Reconciler { return &Reconciler{now: time.Now} }

// SetupWithManager registers the controller with mgr.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.client = mgr.GetClient()
	r.recorder = recorder.For(mgr, ControllerName)
	return ctrl.NewControllerManagedBy(mgr).Named(ControllerName).
		For(&clusterv1alpha1.Cluster{}, builder.WithPredicates(clusterChanges())).
		Watches(&policyv1alpha1.ClusterTaintPolicy{}, handler.Funcs{
			CreateFunc: func(ctx context.Context, e event.CreateEvent, q requestQueue) {
				r.enqueueTargets(ctx, q, e.Object.(*policyv1alpha1.ClusterTaintPolicy))
			},
			UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q requestQueue) {
				o, n := e.ObjectOld.(*policyv1alpha1.ClusterTaintPolicy), e.ObjectNew.(*policyv1alpha1.ClusterTaintPolicy)
				if equality.Semantic.DeepEqual(o.Spec, n.Spec) {
					return
				}
				r.enqueueTargets(ctx, q, o, n)
			},
		}).
		WithOptions(controller.Options{MaxConcurrentReconciles: 1}).
		Complete(r)
}

// clusterChanges passes Cluster creations and the updates that change
// status.conditions; deletions and other updates do not reconcile.
func clusterChanges() predicate.Predicate {
	return eventfilter.UpdatesOf(func(o, n *clusterv1alpha1.Cluster) bool {
		return !equality.Semantic.DeepEqual(o.Status.Conditions, n.Status.Conditions)
	}, eventfilter.Creates, eventfilter.Generics)
}

// enqueueTargets enqueues every cluster one of policies targets.
func (r *Reconciler) enqueueTargets(ctx context.Context, q requestQueue, policies ...*policyv1alpha1.ClusterTaintPolicy) {
	clusters := &clusterv1alpha1.ClusterList{}
	if err := r.client.List(ctx, clusters); err != nil {
		log.FromContext(ctx).Error(err, "list clusters for a cluster taint policy", "clustertaintpolicy", klog.KObj(policies[0]))
		return
	}
	for i := range clusters.Items {
		for _, p := range policies {
			if targets(p, &clusters.Items[i]) {
				q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Name: clusters.Items[i].Name}})
				break
			}
		}
	}
}

// Reconcile brings one cluster's taints in line with the policies.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx).WithValues("cluster", klog.KRef("", req.Name))
	ctx = logr.NewContext(ctx, logger)
	cluster := &clusterv1alpha1.Cluster{}
	if live, err := liveobject.Get(ctx, r.client, req.NamespacedName, cluster); !live {
		return ctrl.Result{}, err
	}
	policies := &policyv1alpha1.ClusterTaintPolicyList{}
	if err := r.client.List(ctx, policies); err != nil {
		return ctrl.Result{}, fmt.Errorf("list cluster taint policies: %w", err)
	}
	sortOldestFirst(policies.Items)
	desired, changed := desiredTaints(cluster, policies.Items, r.now())
	if !changed {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFromWithOptions(cluster.DeepCopy(), client.MergeFromWithOptimisticLock{})
	cluster.Spec.Taints = desired
	if err := r.client.Patch(ctx, cluster, patch); err != nil {
		if !apierrors.IsConflict(err) {
			r.recorder.Event(cluster, corev1.EventTypeWarning, EventReasonTaintClusterFailed, boundedtext.String(err.Error()))
		}
		return ctrl.Result{}, fmt.Errorf("cluster %s: patch taints: %w", cluster.Name, err)
	}
	r.recorder.Eventf(cluster, corev1.EventTypeNormal, EventReasonTaintClusterSucceed,
		"Update Cluster(%s) with taints(%s) succeed", cluster.Name, taints.Summary(desired))
	logger.V(2).Info("updated cluster taints from cluster taint policies", "taints", taints.Summary(desired))
	return ctrl.Result{}, nil
}
