package endpointslicedispatch

// Event reasons (Karmada's), on the MultiClusterService.
const (
	EventReasonDispatchEndpointSliceSucceed = "DispatchEndpointSliceSucceed"
	EventReasonDispatchEndpointSliceFailed  = "DispatchEndpointSliceFailed"
)

const dispatchedMessage = "EndpointSlice are dispatched successfully"
