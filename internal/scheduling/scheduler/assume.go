package scheduler

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// appliedGrace bounds how long a reservation outlives the member reporting
// the workload applied when the cluster's resource summary never changes
// (a member whose status is not collected, or one that cannot run pods).
const appliedGrace = time.Minute

// assumeCache is what kube-scheduler calls assume: the replicas each
// decision placed on each cluster, reserved until Cluster
// status.resourceSummary can reflect them, so that the parallel workers
// never place more than a cluster can hold. Decisions are serialized by
// decide (estimate, assign, reserve), which is cheap next to the API
// writes, which stay parallel. A reservation ends when the binding is
// deleted, rescheduled (replaced) or unscheduled, or once the member has
// reported the workload applied and the cluster's resource summary then
// changes (the pods are counted there), at the latest appliedGrace after
// the applied report.
type assumeCache struct {
	decide sync.Mutex

	mu       sync.Mutex
	disabled bool
	now      func() time.Time
	// byCluster holds the reservations per cluster and binding.
	byCluster map[string]map[types.NamespacedName]*reservation
	// byBinding lists the clusters a binding has reservations on.
	byBinding map[types.NamespacedName][]string
	// totals are the sums of byCluster, kept up to date.
	totals map[string]*reserved
	// applied counts reservations with appliedAt set; lastSweep is when
	// expireLocked last looked at them.
	applied   int
	lastSweep time.Time
}

// reserved is a cluster's total: pods, and per resource the amount (CPU in
// millicores, other resources in units).
type reserved struct {
	pods    int64
	amounts map[corev1.ResourceName]int64
}

func (t *reserved) add(r *reservation, sign int64) {
	t.pods += sign * r.replicas
	for name, q := range r.perReplica {
		v := q.Value()
		if name == corev1.ResourceCPU {
			v = q.MilliValue()
		}
		t.amounts[name] += sign * v * r.replicas
	}
}

type reservation struct {
	replicas   int64
	perReplica corev1.ResourceList
	// appliedAt is when the member first reported the workload applied.
	appliedAt time.Time
}

func newAssumeCache() *assumeCache {
	return &assumeCache{
		now:       time.Now,
		byCluster: map[string]map[types.NamespacedName]*reservation{},
		byBinding: map[types.NamespacedName][]string{},
		totals:    map[string]*reserved{},
	}
}

// Reserved implements estimator.Reservations.
func (a *assumeCache) Reserved(cluster string) (int64, corev1.ResourceList) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.expireLocked()
	t := a.totals[cluster]
	if t == nil || t.pods == 0 {
		return 0, nil
	}
	out := make(corev1.ResourceList, len(t.amounts))
	for name, v := range t.amounts {
		if name == corev1.ResourceCPU {
			out[name] = *resource.NewMilliQuantity(v, resource.DecimalSI)
		} else {
			out[name] = *resource.NewQuantity(v, resource.BinarySI)
		}
	}
	return t.pods, out
}

// expireLocked ends, at most once a second, the reservations whose
// applied report is older than appliedGrace.
func (a *assumeCache) expireLocked() {
	now := a.now()
	if a.applied == 0 || now.Sub(a.lastSweep) < time.Second {
		return
	}
	a.lastSweep = now
	for cluster, m := range a.byCluster {
		for key, r := range m {
			if !r.appliedAt.IsZero() && now.Sub(r.appliedAt) > appliedGrace {
				a.removeLocked(cluster, key)
			}
		}
	}
}

// assume replaces the binding's reservations by clusters and returns how to
// restore the previous ones (when the result could not be written).
func (a *assumeCache) assume(key types.NamespacedName, spec *workv1alpha2.ResourceBindingSpec, clusters []workv1alpha2.TargetCluster) (undo func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.disabled {
		return func() {}
	}
	prev := map[string]*reservation{}
	for _, c := range a.byBinding[key] {
		prev[c] = a.byCluster[c][key]
	}
	a.forgetLocked(key)
	var perReplica corev1.ResourceList
	if spec.ReplicaRequirements != nil {
		perReplica = spec.ReplicaRequirements.ResourceRequest
	}
	for _, tc := range clusters {
		if tc.Replicas > 0 {
			a.addLocked(tc.Name, key, &reservation{replicas: int64(tc.Replicas), perReplica: perReplica})
		}
	}
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.forgetLocked(key)
		for c, r := range prev {
			a.addLocked(c, key, r)
		}
	}
}

// observeApplied notes the clusters that report the binding's workload
// applied.
func (a *assumeCache) observeApplied(key types.NamespacedName, status *workv1alpha2.ResourceBindingStatus) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.byBinding[key]) == 0 {
		return
	}
	for _, item := range status.AggregatedStatus {
		if r := a.byCluster[item.ClusterName][key]; r != nil && item.Applied && r.appliedAt.IsZero() {
			r.appliedAt = a.now()
			a.applied++
		}
	}
}

// summaryChanged ends the reservations on cluster whose workload the
// member had reported applied: the new summary counts their pods.
func (a *assumeCache) summaryChanged(cluster string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for key, r := range a.byCluster[cluster] {
		if !r.appliedAt.IsZero() {
			a.removeLocked(cluster, key)
		}
	}
}

// forget drops every reservation of a deleted binding.
func (a *assumeCache) forget(key types.NamespacedName) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.forgetLocked(key)
}

func (a *assumeCache) forgetLocked(key types.NamespacedName) {
	for _, c := range append([]string(nil), a.byBinding[key]...) {
		a.removeLocked(c, key)
	}
}

func (a *assumeCache) addLocked(cluster string, key types.NamespacedName, r *reservation) {
	m := a.byCluster[cluster]
	if m == nil {
		m = map[types.NamespacedName]*reservation{}
		a.byCluster[cluster] = m
	}
	m[key] = r
	a.byBinding[key] = append(a.byBinding[key], cluster)
	t := a.totals[cluster]
	if t == nil {
		t = &reserved{amounts: map[corev1.ResourceName]int64{}}
		a.totals[cluster] = t
	}
	t.add(r, 1)
	if !r.appliedAt.IsZero() {
		a.applied++
	}
}

func (a *assumeCache) removeLocked(cluster string, key types.NamespacedName) {
	r := a.byCluster[cluster][key]
	if r == nil {
		return
	}
	a.totals[cluster].add(r, -1)
	if a.totals[cluster].pods == 0 {
		delete(a.totals, cluster)
	}
	if !r.appliedAt.IsZero() {
		a.applied--
	}
	delete(a.byCluster[cluster], key)
	if len(a.byCluster[cluster]) == 0 {
		delete(a.byCluster, cluster)
	}
	rest := a.byBinding[key][:0]
	for _, c := range a.byBinding[key] {
		if c != cluster {
			rest = append(rest, c)
		}
	}
	if len(rest) == 0 {
		delete(a.byBinding, key)
	} else {
		a.byBinding[key] = rest
	}
}

// scheduleAndAssume decides and reserves the result while no other worker
// decides, so that each decision sees the others' reservations. The
// returned undo restores the previous reservations when the result could
// not be written.
func (s *Scheduler) scheduleAndAssume(b *binding, clusters []*clusterv1alpha1.Cluster) (outcome, func()) {
	s.assumed.decide.Lock()
	defer s.assumed.decide.Unlock()
	out := s.schedule(b, clusters)
	if out.err != nil && !framework.IsFitError(out.err) {
		return out, func() {}
	}
	// A FitError clears spec.clusters, and with it the reservations and
	// the binding's place in its workload affinity groups.
	undo := s.assumed.assume(b.key(), b.spec, out.result.Clusters)
	if s.groups == nil || !b.obj.Namespaced() {
		return out, undo
	}
	undoGroups := s.groups.Assume(b.key(), b.spec.WorkloadAffinityGroups, b.obj.GetGeneration(), out.result.Clusters)
	return out, func() { undo(); undoGroups() }
}

// specPatchError is a failure to write a scheduling result: the binding
// keeps its previous clusters.
type specPatchError struct{ err error }

func (e *specPatchError) Error() string { return e.err.Error() }
func (e *specPatchError) Unwrap() error { return e.err }
