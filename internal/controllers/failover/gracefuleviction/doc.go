// Package gracefuleviction is Karmada's graceful-eviction controllers
// (resource-binding-graceful-eviction-controller and
// cluster-resource-binding-graceful-eviction-controller, --controllers
// name gracefulEviction): they own the end of every
// spec.gracefulEvictionTasks entry, whoever produced it (the taint
// manager, application failover, or Karmada itself before the switch).
//
// On every create or update (spec or status) of a binding with tasks,
// each task is assessed in order:
//
//   - without creationTimestamp it is stamped now and kept;
//   - suppressDeletion true keeps it, false drops it (the user confirmed);
//   - past creationTimestamp + gracePeriodSeconds (or
//     --graceful-eviction-timeout) it is dropped;
//   - once the scheduler has observed the binding's generation and every
//     cluster of spec.clusters reports Healthy in status.aggregatedStatus,
//     it is dropped;
//   - otherwise it is kept, and the binding is looked at again when the
//     earliest kept task times out.
//
// The kept list is merge-patched with optimistic locking, and each dropped
// task records EvictWorkloadFromClusterSucceed on the binding and its
// template. Dropping a task is what lets the binding controller delete the
// evicted cluster's Work.
package gracefuleviction
