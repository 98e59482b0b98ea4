package cronfederatedhpa

// Event reasons (Karmada's), on the CronFederatedHPA.
const (
	EventReasonStartRuleFailed              = "StartRuleFailed"
	EventReasonScaleFailed                  = "ScaleFailed"
	EventReasonUpdateStatusFailed           = "UpdateStatusFailed"
	EventReasonUpdateCronFederatedHPAFailed = "UpdateCronFederatedHPAFailed"
	// EventReasonValidateRulesFailed: the object's rules cannot run as
	// given (rule names not unique), which Karmada's webhook would have
	// rejected; no rule of the object runs until the spec is fixed.
	EventReasonValidateRulesFailed = "ValidateRulesFailed"
)
