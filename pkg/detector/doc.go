// Package detector owns the ResourceDetector: it watches every served
// resource of the control plane, matches each resource template against
// PropagationPolicies and ClusterPropagationPolicies, claims the template
// with Karmada's labels and annotations, and creates or updates its
// ResourceBinding or ClusterResourceBinding (replicas and requirements from
// the resource interpreter). It also runs the policy side: permanent ids,
// releasing templates a policy no longer selects, cleanup on deletion, and
// (feature gate PropagationPolicyPreemption) preemption: a policy with
// `preemption: Always` re-claims the templates it names from weaker policies.
package detector
