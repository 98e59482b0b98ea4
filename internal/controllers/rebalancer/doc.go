// Package rebalancer is Karmada's workload-rebalancer controller. For every
// WorkloadRebalancer (apps.karmada.io/v1alpha1) it owns:
//
//   - spec.rescheduleTriggeredAt of the bindings of the listed workloads,
//     moved forward to the rebalancer's creationTimestamp (never back), which
//     makes the scheduler run a fresh schedule (internal/scheduling/scheduler);
//   - the rebalancer's status: one observedWorkloads entry per workload with
//     its result (Successful, or Failed with reason ReferencedBindingNotFound),
//     observedGeneration and finishTime;
//   - the rebalancer's deletion ttlSecondsAfterFinished after finishTime.
//
// It reacts to creations and spec changes only; it records no events and
// no conditions, as in Karmada.
package rebalancer
