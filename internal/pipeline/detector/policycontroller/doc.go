// Package policycontroller owns the PropagationPolicy and
// ClusterPropagationPolicy controllers: a policy's identity (permanent id
// and finalizer, the work Karmada's admission webhook does), releasing the
// templates it no longer selects, refreshing the bindings it claims,
// waking the templates that waited for a policy, cleanup on deletion, and
// (through the preemption package) preemption. It keeps no state of its
// own: the policy index, the waiting list and the claims belong to the
// template controller's side (policyindex, templatecontroller).
package policycontroller
