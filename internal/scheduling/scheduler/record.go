package scheduler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/propel-mc/propel/internal/controllers/federatedquota/usage"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	"github.com/propel-mc/propel/internal/shared/names"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// RBAC: the scheduler writes bindings' spec.clusters (patch) and their
// scheduling conditions (status).
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings;clusterresourcebindings,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings/status;clusterresourcebindings/status,verbs=update;patch

// record writes an outcome: the spec (result and applied placement) on
// success or FitError, then the status; each only when it changes. It
// emits events when something was written and returns the retry policy.
func (s *Scheduler) record(ctx context.Context, b *binding, out outcome) (reconcile.Result, error) {
	cur := b
	specWritten := false
	if out.err == nil || framework.IsFitError(out.err) {
		var err error
		if cur, specWritten, err = s.patchSpec(ctx, b, out); err != nil {
			if !quotaExceeded(err) {
				return reconcile.Result{}, err
			}
			// Refused by a quota: the binding keeps its clusters and says
			// why; the error (a spec not written) brings a retry with
			// backoff, as Karmada's 403 from its webhook does.
			out.err = err
			if _, serr := s.patchStatus(ctx, b, out); serr != nil {
				return reconcile.Result{}, errors.Join(err, serr)
			}
			s.emit(b, out)
			return reconcile.Result{}, err
		}
	}
	statusWritten, err := s.patchStatus(ctx, cur, out)
	if err != nil {
		return reconcile.Result{}, err
	}
	if specWritten || statusWritten {
		s.emit(b, out)
	}
	return s.retry(ctx, b, out.err)
}

// patchSpec merge-patches spec.clusters and the applied-placement
// annotation (optimistic lock: a stale result is never written). It
// returns the binding as written.
func (s *Scheduler) patchSpec(ctx context.Context, b *binding, out outcome) (*binding, bool, error) {
	desired := b.copy()
	annotations := maps.Clone(desired.obj.GetAnnotations())
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[names.AppliedPlacementAnnotation] = out.placement
	desired.obj.SetAnnotations(annotations)
	desired.spec.Clusters = out.result.Clusters
	if maps.Equal(annotations, b.obj.GetAnnotations()) && apiequality.Semantic.DeepEqual(b.spec.Clusters, desired.spec.Clusters) {
		return b, false, nil
	}
	if s.quota != nil && b.obj.GetNamespace() != "" {
		if err := s.quota.Admit(ctx, b.obj.GetNamespace(), b.spec, desired.spec); err != nil {
			return nil, false, &specPatchError{fmt.Errorf("check FederatedResourceQuotas for %s: %w", b, err)}
		}
	}
	if err := s.client.Patch(ctx, desired.obj, client.MergeFromWithOptions(b.obj, client.MergeFromWithOptimisticLock{})); err != nil {
		return nil, false, &specPatchError{fmt.Errorf("patch scheduling result of %s: %w", b, err)}
	}
	s.writes.Remember(b.key(), b.obj.GetResourceVersion(), desired.obj.GetResourceVersion(), desired.obj.DeepCopyObject().(client.Object))
	return desired, true, nil
}

// patchStatus sets the Scheduled condition and, on success, the observed
// generation (of the binding as written), the observed affinity term and
// lastScheduledTime. Every successful run stamps lastScheduledTime, as
// Karmada's does (clients wait for the stamp after a cluster change that
// keeps the placement); a run happens only on a trigger (decide), so this
// is one status write per run, and status-only updates do not requeue.
func (s *Scheduler) patchStatus(ctx context.Context, b *binding, out outcome) (bool, error) {
	desired := b.copy()
	st := desired.status
	meta.SetStatusCondition(&st.Conditions, scheduledCondition(out.err))
	if out.err == nil {
		st.SchedulerObservedGeneration = desired.obj.GetGeneration()
		if len(b.spec.Placement.ClusterAffinities) > 0 {
			st.SchedulerObservedAffinityName = out.result.AffinityName
		}
	}
	if out.err == nil {
		st.LastScheduledTime = &metav1.Time{Time: s.now()}
	}
	if apiequality.Semantic.DeepEqual(*b.status, *st) {
		return false, nil
	}
	// An update conditional on the version read, as the optimistic-lock
	// merge patch it replaces was, and cheaper for the API server (no
	// encode-merge-decode of the stored binding).
	if err := s.client.Status().Update(ctx, desired.obj); err != nil {
		return false, fmt.Errorf("patch Scheduled condition of %s: %w", b, err)
	}
	s.writes.Remember(b.key(), b.obj.GetResourceVersion(), desired.obj.GetResourceVersion(), desired.obj.DeepCopyObject().(client.Object))
	return true, nil
}

// syncObservedGeneration records that the current generation needs no
// scheduling.
func (s *Scheduler) syncObservedGeneration(ctx context.Context, b *binding) error {
	if b.status.SchedulerObservedGeneration == b.obj.GetGeneration() {
		return nil
	}
	desired := b.copy()
	desired.status.SchedulerObservedGeneration = b.obj.GetGeneration()
	if err := s.client.Status().Patch(ctx, desired.obj, client.MergeFrom(b.obj)); err != nil {
		return fmt.Errorf("patch schedulerObservedGeneration of %s: %w", b, err)
	}
	s.writes.Remember(b.key(), b.obj.GetResourceVersion(), desired.obj.GetResourceVersion(), desired.obj.DeepCopyObject().(client.Object))
	logf.FromContext(ctx).V(1).Info("no scheduling needed, observed generation updated", "generation", b.obj.GetGeneration())
	return nil
}

// scheduledCondition maps an outcome to the Scheduled condition.
func scheduledCondition(err error) metav1.Condition {
	c := metav1.Condition{Type: workv1alpha2.Scheduled, Status: metav1.ConditionFalse}
	switch {
	case err == nil:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, workv1alpha2.BindingReasonSuccess, workv1alpha2.BindingScheduleSuccessMessage
	case framework.IsFitError(err):
		c.Reason, c.Message = workv1alpha2.BindingReasonNoClusterFit, err.Error()
	case quotaExceeded(err):
		c.Reason, c.Message = usage.Reason, quotaRefusal(err)
	case framework.IsUnschedulable(err):
		c.Reason, c.Message = workv1alpha2.BindingReasonUnschedulable, err.Error()
	default:
		c.Reason, c.Message = workv1alpha2.BindingReasonSchedulerError, err.Error()
	}
	return c
}

// quotaExceeded reports whether err is a FederatedResourceQuota refusing
// a placement.
func quotaExceeded(err error) bool { return quotaRefusal(err) != "" }

// quotaRefusal is the message of a FederatedResourceQuota refusing a
// placement in err, or "": the scheduler's own check (*usage.Exceeded),
// or the 403 QuotaExceeded with which a ResourceBinding webhook
// (karmada-webhook, which owns the charge when installed) refused the
// spec write, as karmada-scheduler reads it.
func quotaRefusal(err error) string {
	var e *usage.Exceeded
	if errors.As(err, &e) {
		return e.Error()
	}
	var s *apierrors.StatusError
	if errors.As(err, &s) && s.ErrStatus.Code == http.StatusForbidden && string(s.ErrStatus.Reason) == usage.Reason {
		return s.Error()
	}
	return ""
}

// retry is the requeue policy: none after success or FitError (a new
// trigger is needed), a late retry when unschedulable, backoff otherwise.
func (s *Scheduler) retry(ctx context.Context, b *binding, err error) (reconcile.Result, error) {
	log := logf.FromContext(ctx)
	switch {
	case err == nil:
		return reconcile.Result{}, nil
	case framework.IsFitError(err):
		log.Info("no cluster fits the binding", "reason", err.Error())
		return reconcile.Result{}, nil
	case framework.IsUnschedulable(err):
		log.Info("binding is unschedulable, retrying later", "reason", err.Error(), "after", unschedulableRetry)
		return reconcile.Result{RequeueAfter: unschedulableRetry}, nil
	}
	return reconcile.Result{}, fmt.Errorf("schedule %s: %w", b, err)
}
