// Package workloadgroups is the scheduler's index of workload affinity
// groups (gate WorkloadAffinity): for each ResourceBinding in a group
// (spec.workloadAffinityGroups), the clusters it targets, and per group
// and cluster how many members target it. It answers, for one binding,
// the clusters its peers in the same namespace hold (framework.WorkloadPeers)
// in one pass over the clusters hosting the group, whatever the group's
// size.
//
// Two sources feed it: the binding cache (Observe, Forget) and the
// scheduler's own decisions (Assume), which count at once so that the
// next decision sees them before the cache does, as the assume cache does
// for resources. A decision gives way to the cache once the cache shows a
// later generation of the binding: the spec write that carries the
// decision raises the generation, so an event of the generation the
// decision was based on is older than it.
package workloadgroups
