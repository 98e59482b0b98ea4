package endpointslicedispatch

import (
	"github.com/propel-mc/propel/internal/controllers/mcs/multiclusterservice"
	networkingv1alpha1 "github.com/propel-mc/propel/pkg/apis/networking/v1alpha1"
)

// dispatchedCondition is this controller's condition of the MCS,
// EndpointSliceDispatched.
var dispatchedCondition = multiclusterservice.Outcome{
	Type:          networkingv1alpha1.EndpointSliceDispatchedConditionType,
	SucceedReason: networkingv1alpha1.EndpointSliceDispatchedSucceedReason, FailedReason: networkingv1alpha1.EndpointSliceDispatchedFailedReason,
	Message:      dispatchedMessage,
	SucceedEvent: EventReasonDispatchEndpointSliceSucceed, FailedEvent: EventReasonDispatchEndpointSliceFailed,
}
