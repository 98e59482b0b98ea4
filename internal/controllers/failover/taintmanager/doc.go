// Package taintmanager is Karmada's taint-manager: it evicts bindings
// from clusters carrying NoExecute taints their placement does not
// tolerate. It has two parts:
//
//   - a Cluster controller ("taint-manager") that, for a cluster with
//     NoExecute taints, finds the ResourceBindings and
//     ClusterResourceBindings whose spec.clusters name it (field index
//     binding.spec.clusters) and queues each for eviction: now when a
//     taint is not tolerated, after the shortest tolerationSeconds
//     otherwise, never when every toleration is unlimited. It rechecks the
//     cluster every 10s while the taints last;
//   - eviction workers (queues binding-eviction and
//     cluster-binding-eviction, 3 workers each, paced by
//     --resource-eviction-rate) that decide again on fresh objects and
//     apply the eviction primitive (package failover/eviction) with
//     producer TaintManager and reason TaintUntolerated, then update the
//     binding. A failed write records EvictWorkloadFromClusterFailed on the
//     binding and its template and is retried with backoff.
//
// Tolerations are the placement's clusterTolerations as last applied by
// the scheduler (annotation policy.karmada.io/applied-placement), or
// spec.placement when the annotation is missing or unreadable. The purge
// mode is spec.failover.cluster.purgeMode (Gracefully when empty), else
// --no-execute-taint-eviction-purge-mode. With the
// StatefulFailoverInjection gate and failover.cluster.statePreservation
// rules, the task carries preservedLabelState from the evicted cluster's
// collected status. The package acts only with --enable-no-execute-taint-eviction;
// it is registered only with the Failover gate and --enable-taint-manager.
package taintmanager
