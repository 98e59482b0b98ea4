package dependencies

// Event reasons the dependencies distributor records (Karmada's strings).
const (
	// EventReasonGetDependenciesSucceed is recorded on the resource
	// template (as by Karmada, not its binding) whose dependencies were
	// interpreted.
	EventReasonGetDependenciesSucceed = "GetDependenciesSucceed"
	// EventReasonGetDependenciesFailed is recorded on the resource
	// template whose dependencies could not be interpreted.
	EventReasonGetDependenciesFailed = "GetDependenciesFailed"
	// EventReasonSyncScheduleResultToDependenciesSucceed is recorded on a
	// binding once its dependencies carry its schedule result.
	EventReasonSyncScheduleResultToDependenciesSucceed = "SyncScheduleResultToDependenciesSucceed"
	// EventReasonSyncScheduleResultToDependenciesFailed is recorded on a
	// binding when a dependency's attached binding could not be written.
	EventReasonSyncScheduleResultToDependenciesFailed = "SyncScheduleResultToDependenciesFailed"
	// EventReasonDependencyPolicyConflict is recorded on an attached
	// binding whose referrers disagree on conflictResolution or
	// preserveResourcesOnDeletion; the message starts "Dependency policy
	// conflict detected: ", as Karmada's does.
	EventReasonDependencyPolicyConflict = "DependencyPolicyConflict"
)
