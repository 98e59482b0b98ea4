package syncer

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
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

	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/pkg/boundedtext"
	"github.com/propel-mc/propel/pkg/controllermanager/recorder"
	"github.com/propel-mc/propel/pkg/names"
	"github.com/propel-mc/propel/pkg/workwriter"
)

// RBAC: static assignments become ResourceQuota Works (written through
// workwriter, deleted here).
// +kubebuilder:rbac:groups=policy.karmada.io,resources=federatedresourcequotas,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=work.karmada.io,resources=works,verbs=get;list;watch;create;update;delete

// Event reasons (Karmada's).
const (
	EventReasonSyncWorkSucceed = "SyncWorkSucceed"
	EventReasonSyncWorkFailed  = "SyncWorkFailed"
)

// Reconciler syncs one FederatedResourceQuota's Works; its requests are
// quotas.
type Reconciler struct {
	client   client.Client
	reader   client.Reader
	recorder record.EventRecorder
}

// New returns the controller; SetupWithManager wires it.
func New() *Reconciler { return &Reconciler{} }

// SetupWithManager registers the controller with mgr: quota creations,
// deletions and changes of staticAssignments, new Clusters (every quota
// assigning to them), and Works carrying the quota labels as they appear
// (including the initial list), so that the Works of a quota deleted while
// the controller was down are removed at start-up; Karmada has no
// finalizer and leaves them behind.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	r.client, r.reader = mgr.GetClient(), mgr.GetAPIReader()
	r.recorder = recorder.For(mgr, names.FederatedResourceQuotaSyncControllerName)
	return builder.ControllerManagedBy(mgr).Named(names.FederatedResourceQuotaSyncControllerName).
		For(&policyv1alpha1.FederatedResourceQuota{}, builder.WithPredicates(assignmentsChanged())).
		Watches(&clusterv1alpha1.Cluster{}, r.quotasAssigningTo(), builder.WithPredicates(createdOnly())).
		Watches(&workv1alpha1.Work{}, handler.EnqueueRequestsFromMapFunc(QuotaOfWork), builder.WithPredicates(createdOnly())).
		Complete(r)
}

func assignmentsChanged() predicate.Funcs {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*policyv1alpha1.FederatedResourceQuota)
		n, ok2 := e.ObjectNew.(*policyv1alpha1.FederatedResourceQuota)
		return !ok1 || !ok2 || !apiequality.Semantic.DeepEqual(o.Spec.StaticAssignments, n.Spec.StaticAssignments)
	}}
}

func createdOnly() predicate.Funcs {
	return predicate.Funcs{
		UpdateFunc:  func(event.UpdateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// QuotaOfWork maps a Work this controller wrote to its quota (nothing for
// other Works).
func QuotaOfWork(_ context.Context, obj client.Object) []reconcile.Request {
	ns, name := obj.GetLabels()[names.FederatedResourceQuotaNamespaceLabel], obj.GetLabels()[names.FederatedResourceQuotaNameLabel]
	if ns == "" || name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: ns, Name: name}}}
}

// quotasAssigningTo maps a new Cluster to every quota with an assignment
// for it.
func (r *Reconciler) quotasAssigningTo() handler.EventHandler {
	return handler.Funcs{CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		var quotas policyv1alpha1.FederatedResourceQuotaList
		if err := r.client.List(ctx, &quotas); err != nil {
			log.FromContext(ctx).Error(err, "list federated resource quotas for a new cluster", "cluster", klog.KObj(e.Object))
			return
		}
		for _, frq := range quotas.Items {
			if slices.ContainsFunc(frq.Spec.StaticAssignments, func(a policyv1alpha1.StaticClusterAssignment) bool { return a.ClusterName == e.Object.GetName() }) {
				q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&frq)})
			}
		}
	}}
}

// Reconcile writes the quota's Works, or removes them when it is gone.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	frq := &policyv1alpha1.FederatedResourceQuota{}
	if err := r.client.Get(ctx, req.NamespacedName, frq); err != nil {
		if apierrors.IsNotFound(err) {
			return reconcile.Result{}, r.removeWorks(ctx, req.Namespace, req.Name, nil)
		}
		return reconcile.Result{}, err
	}
	err := r.sync(ctx, frq)
	if err != nil {
		r.recorder.Eventf(frq, corev1.EventTypeWarning, EventReasonSyncWorkFailed, "Sync works for FederatedResourceQuota(%s/%s) failed: %v", frq.Namespace, frq.Name, boundedtext.Error(err))
		return reconcile.Result{}, err
	}
	r.recorder.Eventf(frq, corev1.EventTypeNormal, EventReasonSyncWorkSucceed, "Sync works for FederatedResourceQuota(%s/%s) succeed.", frq.Namespace, frq.Name)
	return reconcile.Result{}, nil
}

// sync removes the Works of clusters no longer assigned, then writes one
// Work per registered assigned cluster (unregistered ones are skipped
// until their Cluster is created).
func (r *Reconciler) sync(ctx context.Context, frq *policyv1alpha1.FederatedResourceQuota) error {
	assigned := make([]string, 0, len(frq.Spec.StaticAssignments))
	for _, a := range frq.Spec.StaticAssignments {
		assigned = append(assigned, names.ExecutionSpace(a.ClusterName))
	}
	if err := r.removeWorks(ctx, frq.Namespace, frq.Name, assigned); err != nil {
		return err
	}
	var errs []error
	for _, a := range frq.Spec.StaticAssignments {
		err := r.client.Get(ctx, client.ObjectKey{Name: a.ClusterName}, &clusterv1alpha1.Cluster{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("get cluster %s: %w", a.ClusterName, err))
			continue
		}
		d, err := desiredWork(frq, a)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cached := &workv1alpha1.Work{}
		if err := r.client.Get(ctx, client.ObjectKey{Namespace: d.Namespace, Name: d.Name}, cached); err != nil {
			if !apierrors.IsNotFound(err) {
				errs = append(errs, err)
				continue
			}
			cached = nil
		}
		if _, err := workwriter.Write(ctx, r.client, r.reader, d, cached); err != nil {
			errs = append(errs, fmt.Errorf("write Work %s for cluster %s: %w", d.Key(), a.ClusterName, err))
		}
	}
	return kerrors.NewAggregate(errs)
}

// desiredWork is the Work carrying the ResourceQuota of one assignment.
func desiredWork(frq *policyv1alpha1.FederatedResourceQuota, a policyv1alpha1.StaticClusterAssignment) (*workwriter.Desired, error) {
	rq := &corev1.ResourceQuota{Spec: corev1.ResourceQuotaSpec{Hard: a.Hard}}
	rq.Namespace, rq.Name = frq.Namespace, frq.Name
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(rq)
	if err != nil {
		return nil, fmt.Errorf("convert the ResourceQuota of cluster %s: %w", a.ClusterName, err)
	}
	obj := &unstructured.Unstructured{Object: content}
	obj.SetAPIVersion("v1")
	obj.SetKind("ResourceQuota")
	d := &workwriter.Desired{
		Cluster:   a.ClusterName,
		Namespace: names.ExecutionSpace(a.ClusterName),
		Name:      names.WorkName("ResourceQuota", frq.Name, frq.Namespace),
		Labels: map[string]string{
			names.FederatedResourceQuotaNamespaceLabel: frq.Namespace,
			names.FederatedResourceQuotaNameLabel:      frq.Name,
		},
		Manifest: obj,
	}
	if err := workwriter.PrepareManifest(obj, d.Namespace, d.Name); err != nil {
		return nil, err
	}
	return d, nil
}

// removeWorks deletes the quota's Works outside keep (execution
// namespaces); nil keep removes all of them. Removing a Work only asks the
// execution controller to delete the member ResourceQuota: a member that
// is unreachable keeps it until it comes back.
func (r *Reconciler) removeWorks(ctx context.Context, namespace, name string, keep []string) error {
	var works workv1alpha1.WorkList
	if err := r.client.List(ctx, &works, client.MatchingLabels{
		names.FederatedResourceQuotaNamespaceLabel: namespace,
		names.FederatedResourceQuotaNameLabel:      name,
	}); err != nil {
		return fmt.Errorf("list Works of FederatedResourceQuota %s/%s: %w", namespace, name, err)
	}
	var errs []error
	for i := range works.Items {
		w := &works.Items[i]
		if slices.Contains(keep, w.Namespace) || w.DeletionTimestamp != nil {
			continue
		}
		if err := r.client.Delete(ctx, w); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("delete Work %s/%s: %w", w.Namespace, w.Name, err))
		}
	}
	return kerrors.NewAggregate(errs)
}
