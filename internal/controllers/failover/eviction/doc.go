// Package eviction owns the one change every failover producer makes to a
// ResourceBinding or ClusterResourceBinding when it takes a workload off a
// cluster (Karmada's GracefulEvictCluster): the cluster leaves
// spec.clusters and spec.gracefulEvictionTasks gains one task naming it.
//
// The change is made on the object in memory; writing it (and retrying on
// conflict) is the producer's job, so a producer can evict several
// clusters and write once. Evicting a cluster that already has a task
// removes it from spec.clusters again but never adds a second task, so a
// producer that retries or restarts in the middle of an eviction converges
// on exactly one task per cluster.
//
// The graceful-eviction controller (package failover/gracefuleviction)
// later drops the task; the binding controller keeps the cluster's Work
// while the task lives (unless its purgeMode is Directly) and the
// scheduler's ClusterEviction filter keeps the cluster out of new
// placements.
package eviction
