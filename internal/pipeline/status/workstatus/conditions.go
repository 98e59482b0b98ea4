package workstatus

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/workapply"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// setConditions records an Outcome in work's conditions: Dispatching
// always, Applied when the sync applied (it stays as it was while
// dispatching is suspended).
func setConditions(work *workv1alpha1.Work, o *workapply.Outcome) {
	meta.SetStatusCondition(&work.Status.Conditions, dispatchingCondition(o.Suspended))
	if !o.Suspended {
		meta.SetStatusCondition(&work.Status.Conditions, appliedCondition(o))
	}
}

// dispatchingCondition is the Dispatching condition of a Work whose
// dispatching is (or is not) suspended.
func dispatchingCondition(suspended bool) metav1.Condition {
	if suspended {
		return metav1.Condition{Type: workv1alpha1.WorkDispatching, Status: metav1.ConditionFalse,
			Reason: workv1alpha1.WorkSuspendDispatchingReason, Message: workv1alpha1.WorkSuspendDispatchingMessage}
	}
	return metav1.Condition{Type: workv1alpha1.WorkDispatching, Status: metav1.ConditionTrue,
		Reason: workv1alpha1.WorkDispatchingReason, Message: workv1alpha1.WorkDispatchingMessage}
}

// appliedCondition is the Applied condition of an Outcome.
func appliedCondition(o *workapply.Outcome) metav1.Condition {
	errs := o.Errors()
	if len(errs) == 0 {
		return metav1.Condition{Type: workv1alpha1.WorkApplied, Status: metav1.ConditionTrue,
			Reason: workv1alpha1.WorkAppliedSuccessfulReason, Message: workv1alpha1.WorkAppliedSuccessfulMessage}
	}
	// A member's answer can be megabytes long: bound the condition.
	return metav1.Condition{Type: workv1alpha1.WorkApplied, Status: metav1.ConditionFalse,
		Reason: workv1alpha1.WorkAppliedFailedReason,
		Message: boundedtext.String(fmt.Sprintf(workv1alpha1.WorkAppliedFailedMessageFormat,
			len(o.Manifests)-len(errs), len(o.Manifests), utilerrors.NewAggregate(errs).Error()))}
}

// conditionsEqual compares conditions as meta.SetStatusCondition would
// change them (type, status, reason, message, observed generation).
func conditionsEqual(a, b []metav1.Condition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message || x.ObservedGeneration != y.ObservedGeneration {
			return false
		}
	}
	return true
}
