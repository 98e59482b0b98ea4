package eviction

import (
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// Options are the task fields a producer chooses. Nil pointers and empty
// values stay omitted on the wire, as in Karmada.
type Options struct {
	// PurgeMode is Directly, Gracefully or Never.
	PurgeMode policyv1alpha1.PurgeMode
	// Producer names the controller that evicts (for example
	// workv1alpha2.EvictionProducerTaintManager).
	Producer string
	// Reason is CamelCase, 1-32 characters (the CRD's pattern), for
	// example workv1alpha2.EvictionReasonTaintUntolerated.
	Reason string
	// Message is free text (at most 1024 characters); Karmada's producers
	// leave it empty.
	Message string
	// GracePeriodSeconds overrides --graceful-eviction-timeout for the task.
	GracePeriodSeconds *int32
	// SuppressDeletion true keeps the evicted copy until a user sets it to
	// false (purgeMode Never).
	SuppressDeletion *bool
	// PreservedLabelState is the state carried to the new cluster.
	PreservedLabelState map[string]string
	// ClustersBeforeFailover are the clusters of spec.clusters before this
	// eviction (application failover with state preservation only).
	ClustersBeforeFailover []string
	// CreationTimestamp stamps the task; nil leaves it to the
	// graceful-eviction controller (which stamps unstamped tasks in its
	// first pass, as Karmada's does).
	CreationTimestamp *metav1.Time
}

// EvictCluster takes cluster off b: it removes the cluster from
// spec.clusters (the others keep their order) and, unless a task from
// that cluster already exists, appends a task built from opts, with the
// replicas the cluster had (when more than 0). It does nothing when the
// cluster is not in spec.clusters. It reports whether b's spec changed.
func EvictCluster(b workv1alpha2.Binding, cluster string, opts Options) bool {
	spec := b.BindingSpec()
	i := slices.IndexFunc(spec.Clusters, func(tc workv1alpha2.TargetCluster) bool { return tc.Name == cluster })
	if i < 0 {
		return false
	}
	replicas := spec.Clusters[i].Replicas
	spec.Clusters = slices.Delete(spec.Clusters, i, i+1)
	if HasTask(spec, cluster) {
		return true
	}
	task := workv1alpha2.GracefulEvictionTask{
		FromCluster:            cluster,
		PurgeMode:              opts.PurgeMode,
		Reason:                 opts.Reason,
		Message:                opts.Message,
		Producer:               opts.Producer,
		GracePeriodSeconds:     copyPtr(opts.GracePeriodSeconds),
		SuppressDeletion:       copyPtr(opts.SuppressDeletion),
		PreservedLabelState:    copyMap(opts.PreservedLabelState),
		ClustersBeforeFailover: slices.Clone(opts.ClustersBeforeFailover),
		CreationTimestamp:      opts.CreationTimestamp.DeepCopy(),
	}
	if replicas > 0 {
		task.Replicas = &replicas
	}
	spec.GracefulEvictionTasks = append(spec.GracefulEvictionTasks, task)
	return true
}

// HasTask reports whether spec has an eviction task from cluster.
func HasTask(spec *workv1alpha2.ResourceBindingSpec, cluster string) bool {
	return TaskIndex(spec, cluster) >= 0
}

// TaskIndex is the index of the first task from cluster in
// spec.gracefulEvictionTasks, or -1.
func TaskIndex(spec *workv1alpha2.ResourceBindingSpec, cluster string) int {
	return slices.IndexFunc(spec.GracefulEvictionTasks, func(t workv1alpha2.GracefulEvictionTask) bool {
		return t.FromCluster == cluster
	})
}

// Now is a task creation timestamp at t, truncated to the second as the
// API server would store it.
func Now(t time.Time) *metav1.Time {
	ts := metav1.NewTime(t.Truncate(time.Second))
	return &ts
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
