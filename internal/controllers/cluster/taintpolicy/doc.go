// Package taintpolicy is Karmada's cluster-taint-policy-controller: it
// owns the taints ClusterTaintPolicies put on Clusters. For each Cluster it
// evaluates every policy, oldest first: a policy whose targetClusters
// match and whose addOnConditions all match the Cluster's status
// conditions adds its taints (those whose key and effect are not there
// yet, stamped with timeAdded); one whose removeOnConditions all match
// removes them (by key and effect). The result is merge-patched with
// optimistic locking, only when it differs.
//
// It reconciles a Cluster when it is created, when its status conditions
// change, and when a policy targeting it is created or changes its spec.
// Deleting a policy or a cluster changes nothing, so taints are never
// removed because a policy went away (Karmada's rule). The controller
// runs only with the Failover feature gate.
package taintpolicy
