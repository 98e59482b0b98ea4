package execution

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	"github.com/propel-mc/propel/pkg/boundedtext"
	"github.com/propel-mc/propel/pkg/status/manifeststatus"
)

// statusUpdate collects the changes of one reconcile to a Work's status,
// so that they cost at most one write.
type statusUpdate struct {
	work    *workv1alpha1.Work
	changed bool
}

func newStatusUpdate(work *workv1alpha1.Work) *statusUpdate {
	return &statusUpdate{work: work.DeepCopy()}
}

func (s *statusUpdate) setCondition(c metav1.Condition) bool {
	changed := meta.SetStatusCondition(&s.work.Status.Conditions, c)
	s.changed = s.changed || changed
	return changed
}

// setDispatching records whether the Work is dispatched or suspended and
// reports whether that changed.
func (s *statusUpdate) setDispatching(suspended bool) bool {
	c := metav1.Condition{Type: workv1alpha1.WorkDispatching, Status: metav1.ConditionTrue,
		Reason: workv1alpha1.WorkDispatchingReason, Message: workv1alpha1.WorkDispatchingMessage}
	if suspended {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, workv1alpha1.WorkSuspendDispatchingReason, workv1alpha1.WorkSuspendDispatchingMessage
	}
	return s.setCondition(c)
}

// setApplied records the outcome of applying every manifest.
func (s *statusUpdate) setApplied(results []applied) {
	var errs []error
	for _, res := range results {
		if res.err != nil {
			errs = append(errs, res.err)
		}
	}
	c := metav1.Condition{Type: workv1alpha1.WorkApplied, Status: metav1.ConditionTrue,
		Reason: workv1alpha1.WorkAppliedSuccessfulReason, Message: workv1alpha1.WorkAppliedSuccessfulMessage}
	if len(errs) > 0 {
		c.Status, c.Reason = metav1.ConditionFalse, workv1alpha1.WorkAppliedFailedReason
		// A member's answer can be megabytes long: bound the condition.
		c.Message = boundedtext.String(fmt.Sprintf(workv1alpha1.WorkAppliedFailedMessageFormat,
			len(results)-len(errs), len(results), utilerrors.NewAggregate(errs).Error()))
	}
	s.setCondition(c)
}

// setFirstStatuses adds the manifest statuses of the applied objects when
// the status is written anyway and Applied is True, so that a new Work
// reaches its first complete status in one write. The work-status
// controller owns every later change.
func (s *statusUpdate) setFirstStatuses(ctx context.Context, interp manifeststatus.Interpreter, results []applied) {
	if !s.changed || !meta.IsStatusConditionTrue(s.work.Status.Conditions, workv1alpha1.WorkApplied) {
		return
	}
	refs := make([]manifeststatus.Ref, 0, len(results))
	fresh := make(map[int]workv1alpha1.ManifestStatus, len(results))
	for _, res := range results {
		refs = append(refs, res.ref)
		if res.object == nil {
			continue
		}
		reflected, err := manifeststatus.Reflect(ctx, interp, res.ref, res.object)
		if err != nil {
			log.FromContext(ctx).V(1).Info("first status not reflected; the work-status controller retries", "error", boundedtext.String(err.Error()))
			continue
		}
		fresh[res.ref.Ordinal] = reflected.Status
	}
	s.work.Status.ManifestStatuses = manifeststatus.Merge(s.work.Status.ManifestStatuses, refs, fresh)
}

// write patches the status when something changed. The patch carries the
// resourceVersion read, so it never overwrites a newer status written by
// the work-status controller; a conflict is retried by the caller.
func (s *statusUpdate) write(ctx context.Context, c client.Client) error {
	if !s.changed {
		return nil
	}
	// An update of the status subresource, conditional on the version
	// read like the optimistic-lock merge patch it replaces, but cheaper
	// for the API server: a patch of a Work makes it encode the stored
	// Work, manifests included, to JSON and merge before decoding the
	// result (docs/benchmarks.md, end to end). Karmada updates too.
	if err := c.Status().Update(ctx, s.work); err != nil {
		return fmt.Errorf("update status of work %s/%s: %w", s.work.Namespace, s.work.Name, err)
	}
	return nil
}
