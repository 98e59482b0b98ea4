// Package detector assembles the ResourceDetector: it watches every served
// resource of the control plane, matches each resource template against
// PropagationPolicies and ClusterPropagationPolicies, claims the template
// with Karmada's labels and annotations, and creates or updates its
// ResourceBinding or ClusterResourceBinding. The work is split by job:
//
//   - templatecache: the compact template informers and template reads/writes
//   - policyindex: the policy view, matching rules, GVK index and claims
//   - templatecontroller: the template controller (claims and bindings)
//   - policycontroller: PropagationPolicy and ClusterPropagationPolicy controllers
//   - preemption: preemption (feature gate PropagationPolicyPreemption)
//
// This package only wires them together and serves templates to other
// controllers (Templates).
package detector
