// Package status is Propel's cluster-status-controller. For every Push
// Cluster with a secretRef it owns Cluster.status:
//
//   - the Ready condition, from a probe of the member's /readyz (/healthz
//     when /readyz is absent), smoothed by the success and failure
//     thresholds so that a short blip does not flip it;
//   - kubernetesVersion, apiEnablements and the CompleteAPIEnablements
//     condition, from discovery;
//   - nodeSummary and resourceSummary (allocatable, allocated, allocating,
//     allocatableModelings), from Node and Pod informers on the member that
//     internal/shared/membercluster runs (started on first use, stopped by its
//     member-informers controller when the Cluster goes away, and here when
//     it leaves the scope); this package passes the transforms that trim
//     them to the fields the summary needs.
//
// A member that cannot be reached or is unhealthy only gets its Ready
// condition updated: every other field keeps its last known value, and a
// cold informer cache never produces a summary. The status is written only
// when it differs semantically from what the Cluster already has, so an
// unchanged healthy member costs no write per cycle.
package status
