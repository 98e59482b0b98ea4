package names

// Event reasons and fixed messages of the scheduler (Karmada's exact
// strings). The event source component is the scheduler name.
const (
	// EventReasonScheduleBindingSucceed is recorded on a binding and its
	// template when scheduling succeeded.
	EventReasonScheduleBindingSucceed = "ScheduleBindingSucceed"
	// EventReasonScheduleBindingFailed is recorded on a binding and its
	// template when scheduling failed.
	EventReasonScheduleBindingFailed = "ScheduleBindingFailed"
	// ScheduleSuccessMessage is the message of Scheduled=True/Success.
	ScheduleSuccessMessage = "Binding has been scheduled successfully."
)

// Cluster fields a placement's fieldSelector may test.
const (
	ClusterFieldProvider = "provider"
	ClusterFieldRegion   = "region"
	ClusterFieldZone     = "zone"
)
