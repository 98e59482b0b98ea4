// Package preemption owns preemption (feature gate
// PropagationPolicyPreemption): a policy with `preemption: Always`
// re-claims the templates its selectors name when they are claimed by a
// weaker policy. Only the template's claim is rewritten; its update event
// then makes the template controller apply the new policy to the binding
// (placement, claim labels), exactly as for a first claim. The policy
// controller runs it as its last phase and routes policy updates that
// lower a priority to RequeuePreemptors.
package preemption
