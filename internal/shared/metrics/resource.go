// Package metrics defines the metrics Karmada's karmada-controller-manager
// exports for its detector, binding and execution controllers, with
// Karmada's names (no prefix), labels, label values and buckets, so that
// dashboards and alerts written for Karmada read Propel unchanged. They
// are registered (metricreg) in controller-runtime's registry, which the
// binaries serve. The cluster status metrics live beside their controller
// (internal/controllers/cluster/status).
package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/propel-mc/propel/internal/shared/metricreg"
)

// Values of the operationResult label of update_resource_to_cluster:
// UpdateNone when no update call was made (the object was up to date or
// the call failed), UpdateUnchanged when the call left the object's
// resourceVersion as it was, UpdateUpdated when it changed it.
const (
	UpdateNone      = "none"
	UpdateUnchanged = "unchanged"
	UpdateUpdated   = "updated"
)

// controllerBuckets are Karmada's buckets of its controller durations:
// 0.001 s to 2.048 s.
var controllerBuckets = prometheus.ExponentialBuckets(0.001, 2, 12)

var (
	matchPolicyDuration = metricreg.Histogram("resource_match_policy_duration_seconds",
		"Seconds to find the propagation policy matching a resource template.", controllerBuckets)
	applyPolicyDuration = metricreg.HistogramVec("resource_apply_policy_duration_seconds",
		"Seconds to apply a propagation policy to a resource template (claim and binding).", controllerBuckets, "result")
	applyPolicyAttempts = metricreg.CounterVec("policy_apply_attempts_total",
		"Applications of a propagation policy to a resource template, by result.", "result")
	policyPreemptions = metricreg.CounterVec("policy_preemption_total",
		"Preemptions of a resource template claimed by another policy, by result.", "result")
	syncWorkDuration = metricreg.HistogramVec("binding_sync_work_duration_seconds",
		"Seconds to turn a ResourceBinding or ClusterResourceBinding into Works.", controllerBuckets, "result")
	syncWorkloadDuration = metricreg.HistogramVec("work_sync_workload_duration_seconds",
		"Seconds to apply the manifests of a Work to its member cluster.", controllerBuckets, "result")
	createResource = metricreg.CounterVec("create_resource_to_cluster",
		"Objects created in member clusters, by result, apiVersion, kind and cluster.",
		"result", "apiversion", "kind", "member_cluster", "recreate")
	updateResource = metricreg.CounterVec("update_resource_to_cluster",
		"Updates of member cluster objects, by result, apiVersion, kind, cluster and what the update did.",
		"result", "apiversion", "kind", "member_cluster", "operationResult")
	deleteResource = metricreg.CounterVec("delete_resource_from_cluster",
		"Objects deleted from member clusters, by result, apiVersion, kind and cluster.",
		"result", "apiversion", "kind", "member_cluster")
)

// Result is Karmada's result label value of err: "success" or "error".
func Result(err error) string { return metricreg.Result(err) }

func since(start time.Time) float64 { return time.Since(start).Seconds() }

// PolicyMatched observes the time, from start, to find the policy of a
// template that is about to be applied.
func PolicyMatched(start time.Time) { matchPolicyDuration.Observe(since(start)) }

// PolicyApplied records one application of a policy begun at start.
func PolicyApplied(start time.Time, err error) {
	applyPolicyAttempts.WithLabelValues(Result(err)).Inc()
	applyPolicyDuration.WithLabelValues(Result(err)).Observe(since(start))
}

// PolicyPreempted counts one preemption attempt.
func PolicyPreempted(err error) { policyPreemptions.WithLabelValues(Result(err)).Inc() }

// BindingWorksSynced observes one sync of a binding's Works begun at start.
func BindingWorksSynced(start time.Time, err error) {
	syncWorkDuration.WithLabelValues(Result(err)).Observe(since(start))
}

// WorkloadSynced observes one apply of a Work's manifests begun at start.
func WorkloadSynced(start time.Time, err error) {
	syncWorkloadDuration.WithLabelValues(Result(err)).Observe(since(start))
}

// ResourceCreated counts one create of an object in a member cluster.
func ResourceCreated(err error, apiVersion, kind, cluster string, recreate bool) {
	createResource.WithLabelValues(Result(err), apiVersion, kind, cluster, strconv.FormatBool(recreate)).Inc()
}

// ResourceUpdated counts one update decision on a member object;
// operation is UpdateNone, UpdateUnchanged or UpdateUpdated.
func ResourceUpdated(err error, apiVersion, kind, cluster, operation string) {
	updateResource.WithLabelValues(Result(err), apiVersion, kind, cluster, operation).Inc()
}

// ResourceDeleted counts one delete of a member object.
func ResourceDeleted(err error, apiVersion, kind, cluster string) {
	deleteResource.WithLabelValues(Result(err), apiVersion, kind, cluster).Inc()
}
