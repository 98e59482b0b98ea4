package endpointslicedispatch

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/controllers/mcs/multiclusterservice"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
)

// record sets EndpointSliceDispatched and emits the matching event.
func (r *Reconciler) record(ctx context.Context, mcs *networkingv1alpha1.MultiClusterService, dispatchErr error) error {
	cond := metav1.Condition{
		Type: networkingv1alpha1.EndpointSliceDispatchedConditionType, Status: metav1.ConditionTrue,
		Reason: networkingv1alpha1.EndpointSliceDispatchedSucceedReason, Message: dispatchedMessage,
	}
	if dispatchErr != nil {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionFalse, networkingv1alpha1.EndpointSliceDispatchedFailedReason, boundedtext.Error(dispatchErr).Error()
		r.recorder.Event(mcs, corev1.EventTypeWarning, EventReasonDispatchEndpointSliceFailed, cond.Message)
	} else {
		r.recorder.Event(mcs, corev1.EventTypeNormal, EventReasonDispatchEndpointSliceSucceed, dispatchedMessage)
	}
	return multiclusterservice.SetCondition(ctx, r.client, client.ObjectKeyFromObject(mcs), cond)
}
