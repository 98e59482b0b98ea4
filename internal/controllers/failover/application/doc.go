// Package application is Karmada's application failover: the
// resource-binding-application-failover-controller and
// cluster-resource-binding-application-failover-controller. For a binding
// whose policy sets failover.application, a cluster whose copy stays
// Unhealthy (binding status.aggregatedStatus[].health, from the
// interpreter's InterpretHealth) for longer than
// decisionConditions.tolerationSeconds is evicted with the shared
// primitive (package failover/eviction): it leaves spec.clusters and gains
// a gracefulEvictionTasks entry with reason ApplicationFailure, the
// policy's purgeMode (gracePeriodSeconds for Gracefully, suppressDeletion
// for Never) and, with gate StatefulFailoverInjection, the
// statePreservation labels and the clusters before the failover.
//
// It owns only the in-memory record of when each cluster was first seen
// Unhealthy (lost on restart, as in Karmada: the tolerance starts again).
// The scheduler, the binding controller and the graceful-eviction
// controller do the rest.
package application
