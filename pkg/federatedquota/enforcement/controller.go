package enforcement

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/tools/record"
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

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/pkg/boundedtext"
	"github.com/propel-mc/propel/pkg/controllermanager/recorder"
	"github.com/propel-mc/propel/pkg/federatedquota/usage"
	"github.com/propel-mc/propel/pkg/names"
)

// RBAC: overall and overallUsed from ResourceBindings (status update), also
// by the scheduler's admission check.
// +kubebuilder:rbac:groups=policy.karmada.io,resources=federatedresourcequotas,verbs=get;list;watch
// +kubebuilder:rbac:groups=policy.karmada.io,resources=federatedresourcequotas/status,verbs=update
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings,verbs=get;list;watch

// Event reasons (Karmada's).
const (
	EventReasonCollectOverallStatusSucceed = "CollectOverallStatusSucceed"
	EventReasonCollectOverallStatusFailed  = "CollectOverallStatusFailed"
)

// Reconciler recomputes one quota's overall usage; its requests are
// quotas.
type Reconciler struct {
	// SyncPeriod is --federated-resource-quota-sync-period: every quota is
	// recomputed this often, correcting charges the admission check made
	// for writes that then failed.
	SyncPeriod time.Duration

	client   client.Client
	recorder record.EventRecorder
}

// SetupWithManager registers the controller with mgr: quota creations and
// changes of spec.overall, ResourceBinding deletions (every quota of the
// namespace), and the periodic recomputation.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	if r.SyncPeriod <= 0 {
		return fmt.Errorf("--federated-resource-quota-sync-period must be > 0, got %s", r.SyncPeriod)
	}
	r.client = mgr.GetClient()
	r.recorder = recorder.For(mgr, names.FederatedResourceQuotaEnforcementControllerName)
	return builder.ControllerManagedBy(mgr).Named(names.FederatedResourceQuotaEnforcementControllerName).
		For(&policyv1alpha1.FederatedResourceQuota{}, builder.WithPredicates(overallChanged())).
		Watches(&workv1alpha2.ResourceBinding{}, r.quotasOfNamespace(), builder.WithPredicates(deletedOnly())).
		Complete(r)
}

func overallChanged() predicate.Funcs {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*policyv1alpha1.FederatedResourceQuota)
			n, ok2 := e.ObjectNew.(*policyv1alpha1.FederatedResourceQuota)
			return !ok1 || !ok2 || !apiequality.Semantic.DeepEqual(o.Spec.Overall, n.Spec.Overall)
		},
		DeleteFunc: func(event.DeleteEvent) bool { return false },
	}
}

func deletedOnly() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		UpdateFunc:  func(event.UpdateEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// quotasOfNamespace maps a deleted binding to every quota of its namespace.
func (r *Reconciler) quotasOfNamespace() handler.EventHandler {
	return handler.Funcs{DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		var quotas policyv1alpha1.FederatedResourceQuotaList
		if err := r.client.List(ctx, &quotas, client.InNamespace(e.Object.GetNamespace())); err != nil {
			log.FromContext(ctx).Error(err, "list federated resource quotas for a deleted binding", "binding", klog.KObj(e.Object))
			return
		}
		for i := range quotas.Items {
			q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&quotas.Items[i])})
		}
	}}
}

// Reconcile sets status.overall and status.overallUsed from the
// namespace's bindings, and comes back after SyncPeriod.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	frq := &policyv1alpha1.FederatedResourceQuota{}
	if err := r.client.Get(ctx, req.NamespacedName, frq); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if frq.DeletionTimestamp != nil {
		return reconcile.Result{}, nil
	}
	if err := r.collect(ctx, frq); err != nil {
		r.recorder.Eventf(frq, corev1.EventTypeWarning, EventReasonCollectOverallStatusFailed, "Collect overall status of FederatedResourceQuota(%s/%s) failed: %v", frq.Namespace, frq.Name, boundedtext.Error(err))
		return reconcile.Result{}, err
	}
	r.recorder.Eventf(frq, corev1.EventTypeNormal, EventReasonCollectOverallStatusSucceed, "Collect overall status of FederatedResourceQuota(%s/%s) succeed.", frq.Namespace, frq.Name)
	return reconcile.Result{RequeueAfter: r.SyncPeriod}, nil
}

func (r *Reconciler) collect(ctx context.Context, frq *policyv1alpha1.FederatedResourceQuota) error {
	var bindings workv1alpha2.ResourceBindingList
	if err := r.client.List(ctx, &bindings, client.InNamespace(frq.Namespace)); err != nil {
		return fmt.Errorf("list ResourceBindings: %w", err)
	}
	for i := range bindings.Items {
		if err := usage.CheckBinding(&bindings.Items[i].Spec); err != nil {
			log.FromContext(ctx).Error(err, "binding charges nothing for its negative requests", "binding", klog.KObj(&bindings.Items[i]))
		}
	}
	used := OverallUsed(bindings.Items, frq.Spec.Overall)
	if apiequality.Semantic.DeepEqual(frq.Status.Overall, frq.Spec.Overall) && apiequality.Semantic.DeepEqual(frq.Status.OverallUsed, used) {
		return nil
	}
	frq.Status.Overall = frq.Spec.Overall
	frq.Status.OverallUsed = used
	if err := r.client.Status().Update(ctx, frq); err != nil {
		return fmt.Errorf("update status: %w", err)
	}
	return nil
}

// OverallUsed is what the bindings charge, summed, restricted to the
// resources of overall (ClusterResourceBindings are not counted, as in
// Karmada).
func OverallUsed(bindings []workv1alpha2.ResourceBinding, overall corev1.ResourceList) corev1.ResourceList {
	sum := corev1.ResourceList{}
	for i := range bindings {
		for n, q := range usage.OfBinding(&bindings[i].Spec) {
			total := sum[n]
			total.Add(q)
			sum[n] = total
		}
	}
	return usage.Restrict(sum, overall)
}
