package preemption

// Event reasons (Karmada's): on the template, and PreemptPolicyFailed also
// on a policy whose `preemption: Always` cannot be honoured.
const (
	ReasonPreemptSucceed = "PreemptPolicySucceed"
	ReasonPreemptFailed  = "PreemptPolicyFailed"
)
