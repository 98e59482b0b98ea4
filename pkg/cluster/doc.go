// Package cluster groups the controllers that own Cluster objects on the
// control plane, one per sub-package:
//
//   - lifecycle (cluster-controller): execution namespaces, the
//     not-ready/unreachable taints, the cluster finalizer, cleanup when a
//     Cluster is deleted, and the Lease-based health monitor of Pull clusters;
//   - status (cluster-status-controller): health probes of Push members and
//     everything under Cluster.status.
//
// The integration tests of both, and of pkg/namespacesync, run here against
// one shared multi-cluster environment.
package cluster
