// Package metrics defines the metrics Karmada's karmada-controller-manager
// exports for its detector, binding and execution controllers, with
// Karmada's names (no prefix), labels, label values and buckets, so that
// dashboards and alerts written for Karmada read Propel unchanged. They
// are registered in controller-runtime's registry, which the binaries
// serve. The cluster status metrics live beside their controller
// (internal/controllers/cluster/status).
package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
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
	matchPolicyDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "resource_match_policy_duration_seconds",
		Help:    "Seconds to find the propagation policy matching a resource template.",
		Buckets: controllerBuckets,
	})
	applyPolicyDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "resource_apply_policy_duration_seconds",
		Help:    "Seconds to apply a propagation policy to a resource template (claim and binding).",
		Buckets: controllerBuckets,
	}, []string{"result"})
	applyPolicyAttempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "policy_apply_attempts_total",
		Help: "Applications of a propagation policy to a resource template, by result.",
	}, []string{"result"})
	policyPreemptions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "policy_preemption_total",
		Help: "Preemptions of a resource template claimed by another policy, by result.",
	}, []string{"result"})
	syncWorkDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "binding_sync_work_duration_seconds",
		Help:    "Seconds to turn a ResourceBinding or ClusterResourceBinding into Works.",
		Buckets: controllerBuckets,
	}, []string{"result"})
	syncWorkloadDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "work_sync_workload_duration_seconds",
		Help:    "Seconds to apply the manifests of a Work to its member cluster.",
		Buckets: controllerBuckets,
	}, []string{"result"})
	createResource = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "create_resource_to_cluster",
		Help: "Objects created in member clusters, by result, apiVersion, kind and cluster.",
	}, []string{"result", "apiversion", "kind", "member_cluster", "recreate"})
	updateResource = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "update_resource_to_cluster",
		Help: "Updates of member cluster objects, by result, apiVersion, kind, cluster and what the update did.",
	}, []string{"result", "apiversion", "kind", "member_cluster", "operationResult"})
	deleteResource = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "delete_resource_from_cluster",
		Help: "Objects deleted from member clusters, by result, apiVersion, kind and cluster.",
	}, []string{"result", "apiversion", "kind", "member_cluster"})
)

func init() {
	metrics.Registry.MustRegister(matchPolicyDuration, applyPolicyDuration, applyPolicyAttempts, policyPreemptions,
		syncWorkDuration, syncWorkloadDuration, createResource, updateResource, deleteResource)
}

// Result is Karmada's result label value of err: "success" or "error".
func Result(err error) string {
	if err != nil {
		return "error"
	}
	return "success"
}

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
