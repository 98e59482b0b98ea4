// Package policyindex owns what the detector's template controller, policy
// controller and preemption share about PropagationPolicies and
// ClusterPropagationPolicies: the Policy view of both kinds, Karmada's
// matching rules (explicit priority, implicit selector priority, name), the
// GVK-indexed set of live policies kept current from the manager's cache
// (Index, Watch), and the claim vocabulary: which policy a template or
// binding names through Karmada's labels and annotations (claim.go).
package policyindex
