package multiclusterservice

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
)

// Outcome is one condition of an MCS's status and the events that report
// its outcome.
type Outcome struct {
	// Type is the condition's type.
	Type string
	// SucceedReason and FailedReason are the condition's reasons.
	SucceedReason, FailedReason string
	// Message is the condition's and the event's message on success.
	Message string
	// SucceedEvent and FailedEvent are the events' reasons.
	SucceedEvent, FailedEvent string
}

// serviceApplied is this controller's condition, ServiceApplied.
var serviceApplied = Outcome{
	Type:          networkingv1alpha1.ServiceAppliedConditionType,
	SucceedReason: networkingv1alpha1.ServiceAppliedSucceedReason, FailedReason: networkingv1alpha1.ServiceAppliedFailedReason,
	Message:      serviceAppliedMessage,
	SucceedEvent: EventReasonSyncServiceSucceed, FailedEvent: EventReasonSyncServiceFailed,
}

// Record sets o's condition on mcs, True or (with err's bounded text)
// False as err is nil or not, and emits the matching event.
func Record(ctx context.Context, c client.Client, recorder record.EventRecorder, mcs *networkingv1alpha1.MultiClusterService, o Outcome, err error) error {
	cond := metav1.Condition{Type: o.Type, Status: metav1.ConditionTrue, Reason: o.SucceedReason, Message: o.Message}
	if err != nil {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, o.FailedReason, boundedtext.Error(err).Error()
		recorder.Event(mcs, corev1.EventTypeWarning, o.FailedEvent, cond.Message)
	} else {
		recorder.Event(mcs, corev1.EventTypeNormal, o.SucceedEvent, o.Message)
	}
	return SetCondition(ctx, c, client.ObjectKeyFromObject(mcs), cond)
}

// SetCondition writes one condition of an MCS's status when it changed;
// the dispatch controller writes the other one.
func SetCondition(ctx context.Context, c client.Client, key client.ObjectKey, cond metav1.Condition) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		mcs := &networkingv1alpha1.MultiClusterService{}
		if err := c.Get(ctx, key, mcs); err != nil {
			return client.IgnoreNotFound(err)
		}
		if !meta.SetStatusCondition(&mcs.Status.Conditions, cond) {
			return nil
		}
		return c.Status().Update(ctx, mcs)
	})
}
