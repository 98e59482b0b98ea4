// Package scheduler is Propel's karmada-scheduler: a controller-runtime
// controller that takes the ResourceBindings and ClusterResourceBindings
// addressed to its scheduler name, decides whether they need scheduling,
// runs the pure pipeline of package core over the cached Clusters, and
// writes spec.clusters, the policy.karmada.io/applied-placement annotation
// and the Scheduled condition (with schedulerObservedGeneration,
// schedulerObservingAffinityName and lastScheduledTime) exactly when they
// change. Cluster changes requeue the bindings they may affect.
//
// Reconcile is split into phases: load (cache plus the controller's own
// not-yet-observed writes), admit, decide, schedule, and record.
package scheduler
