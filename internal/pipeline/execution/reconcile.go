package execution

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	"github.com/propel-mc/propel/internal/shared/metrics"
	"github.com/propel-mc/propel/internal/shared/workapply"
	"github.com/propel-mc/propel/internal/shared/workcluster"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// errClusterNotReady is returned (and retried) while the Work's cluster is
// not Ready.
var errClusterNotReady = errors.New("not ready")

// Reconcile syncs one Work in phases: resolve its cluster, finalize a
// deleted Work, honour suspension, apply the manifests, record the
// outcome.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	work := &workv1alpha1.Work{}
	if err := r.client.Get(ctx, req.NamespacedName, work); err != nil {
		if apierrors.IsNotFound(err) {
			r.refs.forget(req.NamespacedName)
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	cluster, err := workcluster.Get(ctx, r.client, work.Namespace)
	if apierrors.IsNotFound(err) {
		return reconcile.Result{}, r.releaseOrphan(ctx, work)
	}
	if err != nil {
		return reconcile.Result{}, fmt.Errorf("work %s/%s: %w", work.Namespace, work.Name, err)
	}
	ctx = log.IntoContext(ctx, log.FromContext(ctx).WithValues("cluster", klog.KObj(cluster)))
	if !workcluster.IsPush(cluster) {
		return reconcile.Result{}, nil
	}
	if !work.DeletionTimestamp.IsZero() {
		return reconcile.Result{}, boundedtext.Error(r.finalize(ctx, work, cluster))
	}
	// The error goes to controller-runtime's log: bound a member's text.
	return reconcile.Result{}, boundedtext.Error(r.sync(ctx, work, cluster))
}

// sync dispatches a live Work: suspension, readiness, apply, and the
// outcome handed to the Work status owner.
func (r *Reconciler) sync(ctx context.Context, work *workv1alpha1.Work, cluster *clusterv1alpha1.Cluster) error {
	key := client.ObjectKeyFromObject(work)
	if work.DispatchingSuspended() {
		r.recordDispatching(work)
		r.status.Record(key, workapply.Outcome{WorkUID: work.UID, Suspended: true})
		return nil
	}
	if !workcluster.IsReady(cluster) {
		return fmt.Errorf("work %s/%s: cluster(%s) %w", work.Namespace, work.Name, cluster.Name, errClusterNotReady)
	}
	set, err := r.memberInformers(ctx, cluster)
	if err != nil {
		return fmt.Errorf("work %s/%s: %w", work.Namespace, work.Name, err)
	}
	start := time.Now()
	results := r.applyAll(ctx, work, set)
	metrics.WorkloadSynced(start, applyError(results))
	if err := transientError(results); err != nil {
		// Say nothing about an apply whose outcome is unknown.
		return fmt.Errorf("work %s/%s: cluster %s: %w", work.Namespace, work.Name, cluster.Name, err)
	}
	r.recordDispatching(work)
	r.status.Record(key, outcomeOf(work, results))
	return r.report(ctx, work, cluster.Name, results)
}

// applyError joins the errors of the manifests of one apply.
func applyError(results []applied) error {
	var errs []error
	for _, res := range results {
		if res.err != nil {
			errs = append(errs, res.err)
		}
	}
	return errors.Join(errs...)
}

// outcomeOf is what the Work status owner needs of results.
func outcomeOf(work *workv1alpha1.Work, results []applied) workapply.Outcome {
	o := workapply.Outcome{WorkUID: work.UID, Manifests: make([]workapply.Manifest, 0, len(results))}
	for _, res := range results {
		o.Manifests = append(o.Manifests, workapply.Manifest{Ref: res.ref, Object: res.object, Err: res.err})
	}
	return o
}

// recordDispatching records WorkDispatching when the Dispatching condition
// the status owner is about to write changes, as Karmada does when it
// writes the condition itself: on the first dispatch, on suspension and on
// resumption. The status owner writes it with the apply's outcome, so the
// event is recorded only for a sync that hands it one.
func (r *Reconciler) recordDispatching(work *workv1alpha1.Work) {
	if msg := dispatchingEvent(work); msg != "" {
		r.recorder.Event(work, corev1.EventTypeNormal, EventReasonWorkDispatching, msg)
	}
}

// dispatchingEvent is the WorkDispatching message for work's next
// Dispatching condition, or "" when the status already holds it.
func dispatchingEvent(work *workv1alpha1.Work) string {
	if work.DispatchingSuspended() {
		if suspensionRecorded(work) {
			return ""
		}
		return workv1alpha1.WorkSuspendDispatchingMessage
	}
	if dispatchingRecorded(work) {
		return ""
	}
	return workv1alpha1.WorkDispatchingMessage
}

// suspensionRecorded reports whether the status already says dispatching
// is suspended.
func suspensionRecorded(work *workv1alpha1.Work) bool {
	c := meta.FindStatusCondition(work.Status.Conditions, workv1alpha1.WorkDispatching)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == workv1alpha1.WorkSuspendDispatchingReason &&
		c.Message == workv1alpha1.WorkSuspendDispatchingMessage
}

// dispatchingRecorded reports whether the status already says the Work
// is being dispatched; a Work without the condition has not been yet.
func dispatchingRecorded(work *workv1alpha1.Work) bool {
	return meta.IsStatusConditionTrue(work.Status.Conditions, workv1alpha1.WorkDispatching)
}

// memberInformers returns the informer set of the cluster's current
// clients.
func (r *Reconciler) memberInformers(ctx context.Context, cluster *clusterv1alpha1.Cluster) (*membercluster.ClusterInformers, error) {
	m, err := r.clients.ForCluster(ctx, cluster)
	if err != nil {
		return nil, fmt.Errorf("clients of cluster %s: %w", cluster.Name, err)
	}
	return r.informers.For(m), nil
}

func transientError(results []applied) error {
	for _, res := range results {
		if isTransient(res.err) {
			return fmt.Errorf("%s: %w", res.ref, res.err)
		}
	}
	return nil
}

// report logs and records events for the outcome of each manifest (on its
// template) and of the whole Work (on the Work), and returns the failures,
// so that the Work is retried with backoff. Success is recorded only when
// something was written to the member.
func (r *Reconciler) report(ctx context.Context, work *workv1alpha1.Work, cluster string, results []applied) error {
	logger := log.FromContext(ctx)
	var errs []error
	wrote := false
	for _, res := range results {
		if res.err != nil {
			err := fmt.Errorf("work %s/%s: apply %s to cluster %s: %w", work.Namespace, work.Name, res.ref, cluster, res.err)
			errs = append(errs, err)
			r.event(res, corev1.EventTypeWarning, EventReasonSyncFailed, boundedtext.String(err.Error()))
			continue
		}
		if res.op != opNone {
			wrote = true
			logger.Info("applied manifest", "object", klog.KRef(res.ref.Namespace, res.ref.Name), "kind", res.ref.GVK.Kind, "operation", string(res.op))
			r.event(res, corev1.EventTypeNormal, EventReasonSyncSucceed,
				fmt.Sprintf("Successfully applied resource(%s) to cluster %s", res.ref, cluster))
		}
	}
	err := errors.Join(errs...)
	switch {
	case err != nil:
		r.recorder.Event(work, corev1.EventTypeWarning, EventReasonSyncFailed,
			boundedtext.String(fmt.Sprintf("Failed to sync work(%s/%s) to cluster(%s): %v", work.Namespace, work.Name, cluster, err)))
	case wrote:
		r.recorder.Event(work, corev1.EventTypeNormal, EventReasonSyncSucceed,
			fmt.Sprintf("Synced work(%s/%s) to cluster(%s).", work.Namespace, work.Name, cluster))
	}
	return err
}

func (r *Reconciler) event(res applied, eventType, reason, message string) {
	if res.template != nil {
		r.recorder.Event(res.template, eventType, reason, message)
	}
}
