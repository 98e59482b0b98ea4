package gracefuleviction

import (
	"encoding/json"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// assessment is the outcome of one pass over a binding's tasks.
type assessment struct {
	kept    []workv1alpha2.GracefulEvictionTask
	dropped []string // fromCluster of each dropped task
	// changed is true when kept differs from the tasks (drops or stamps).
	changed bool
	// requeueAfter is when the earliest kept task times out (0: never).
	requeueAfter time.Duration
}

// assess applies Karmada's rules (package doc) to b's tasks at now, with
// timeout the default task lifetime.
func assess(b workv1alpha2.Binding, now time.Time, timeout time.Duration) assessment {
	spec, status := b.BindingSpec(), b.BindingStatus()
	scheduled := status.SchedulerObservedGeneration == b.GetGeneration()
	healthy := scheduled && newPlacementHealthy(spec, status)
	var out assessment
	for _, task := range spec.GracefulEvictionTasks {
		if task.CreationTimestamp == nil {
			stamp := metav1.NewTime(now)
			task.CreationTimestamp = &stamp
			out.kept = append(out.kept, task)
			out.changed = true
			out.requeue(lifetime(task, timeout))
			continue
		}
		if task.SuppressDeletion != nil {
			if *task.SuppressDeletion {
				out.kept = append(out.kept, task)
				continue
			}
			out.drop(task)
			continue
		}
		deadline := task.CreationTimestamp.Add(lifetime(task, timeout))
		if now.After(deadline) || healthy {
			out.drop(task)
			continue
		}
		out.kept = append(out.kept, task)
		out.requeue(deadline.Sub(now))
	}
	return out
}

func (a *assessment) drop(task workv1alpha2.GracefulEvictionTask) {
	a.dropped = append(a.dropped, task.FromCluster)
	a.changed = true
}

func (a *assessment) requeue(d time.Duration) {
	// The deadline is "now > deadline": look again just after it.
	d += time.Second
	if a.requeueAfter == 0 || d < a.requeueAfter {
		a.requeueAfter = d
	}
}

// lifetime is the task's gracePeriodSeconds, else timeout.
func lifetime(task workv1alpha2.GracefulEvictionTask, timeout time.Duration) time.Duration {
	if task.GracePeriodSeconds != nil {
		return time.Duration(*task.GracePeriodSeconds) * time.Second
	}
	return timeout
}

// newPlacementHealthy reports whether every cluster of spec.clusters has
// an aggregatedStatus item with health Healthy that also shows the
// replicas the cluster is now assigned (replicasReady). An empty
// spec.clusters counts as healthy (Karmada's rule).
//
// Karmada checks health only. Health says nothing about the replica
// count, and a surviving cluster usually still reports Healthy at its old
// size while it scales up, so Karmada often drops the task (and deletes
// the old copy) before the replacement replicas run (karmada#3736). The
// replica check closes that gap for every kind whose status reports
// replicas and readyReplicas.
func newPlacementHealthy(spec *workv1alpha2.ResourceBindingSpec, status *workv1alpha2.ResourceBindingStatus) bool {
	items := make(map[string]*workv1alpha2.AggregatedStatusItem, len(status.AggregatedStatus))
	for i := range status.AggregatedStatus {
		items[status.AggregatedStatus[i].ClusterName] = &status.AggregatedStatus[i]
	}
	for _, tc := range spec.Clusters {
		item := items[tc.Name]
		if item == nil || item.Health != workv1alpha2.ResourceHealthy || !replicasReady(item.Status, tc.Replicas) {
			return false
		}
	}
	return true
}

// replicasReady reports whether a collected status shows at least want
// ready replicas. Only statuses with a numeric "replicas" field (the
// workload kinds: Deployment, StatefulSet, ReplicaSet and the like) are
// checked, against "readyReplicas" (absent means 0); others pass.
func replicasReady(status *runtime.RawExtension, want int32) bool {
	if want <= 0 || status == nil || len(status.Raw) == 0 {
		return true
	}
	var counts struct {
		Replicas      *float64 `json:"replicas"`
		ReadyReplicas *float64 `json:"readyReplicas"`
	}
	if err := json.Unmarshal(status.Raw, &counts); err != nil || counts.Replicas == nil {
		return true
	}
	ready := 0.0
	if counts.ReadyReplicas != nil {
		ready = *counts.ReadyReplicas
	}
	return ready >= float64(want) && *counts.Replicas >= float64(want)
}
