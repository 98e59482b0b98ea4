// Package execution owns the execution controller: it applies the manifests
// of each Work in a Push-mode cluster's execution namespace
// (karmada-es-<cluster>) to that member cluster, and hands the outcome of
// each sync (internal/shared/workapply.Outcome) to the Work status owner, the
// work-status controller, which writes the Applied and Dispatching
// conditions and the manifest statuses in one write. It writes no Work
// status itself.
//
// Per manifest it creates the object, or updates it after keeping the
// fields the member owns (base retain plus the interpreter's Retain). It
// never overwrites an object it does not manage (label
// karmada.io/managed=true) unless the manifest says
// work.karmada.io/conflict-resolution: overwrite, and skips the write when
// the member object already equals the desired state after Retain. Member
// changes arrive through internal/shared/membercluster's informers; a change that is not
// Propel's own write re-queues the Work, which reverts drift.
//
// When a Work is deleted it deletes the objects it manages (or, with
// preserveResourcesOnDeletion, strips Propel's metadata from them) and then
// removes the karmada.io/execution-controller finalizer. It never deletes
// because a cache is cold, a member is unreachable or an interpreter call
// failed: such errors leave the Work's conditions and finalizer as they are
// and are retried with backoff.
package execution
