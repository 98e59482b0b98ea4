// Package overrides owns OverridePolicy and ClusterOverridePolicy
// application, as Karmada's override manager does it: selecting the
// policies that match an object (resource selectors) and the rules that
// match a member cluster (target cluster affinity), ordering them (cluster
// policies first, then namespaced ones; within each, implicit priority
// ascending, then name), applying every overrider kind with Karmada's
// semantics (image, command, args, labels, annotations, field and
// plaintext, in that order within a rule), and returning the record
// written to a Work's policy.karmada.io/applied-cluster-overrides and
// policy.karmada.io/applied-overrides annotations.
//
// A bad override never panics: it returns an *Error naming the policy, the
// rule, the overrider and the path.
package overrides
