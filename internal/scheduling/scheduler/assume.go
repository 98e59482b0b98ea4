package scheduler

import (
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/estimator"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/framework"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// appliedGrace bounds how long a reservation outlives the member reporting
// the workload applied when the cluster's resource summary never changes
// (a member whose status is not collected, or one that cannot run pods).
const appliedGrace = time.Minute

// assumptionTTL is how long, with the SchedulingOvercommitProtection
// gate, a binding's reservations last after its latest placement when no
// cluster reports its workload Healthy (Karmada's assumption TTL).
const assumptionTTL = 5 * time.Minute

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
//
// With the SchedulingOvercommitProtection gate (overcommitProtection) the
// same cache follows Karmada's assumptions instead: only ResourceBindings
// of workloads are reserved, those with components too (one set, as
// written in the binding); a reservation ends when the binding is deleted
// or placed elsewhere, when its cluster newly reports the workload
// Healthy, or assumptionTTL after the binding's latest placement. The
// reservations are then also sent to the accurate estimators as assumed
// workloads (AssumedWorkloads), which deduct them themselves.
type assumeCache struct {
	decide sync.Mutex

	mu                   sync.Mutex
	disabled             bool
	overcommitProtection bool
	now                  func() time.Time
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
	// assumedAt is when each binding was last placed (gate on), for the
	// TTL and for listing the newest first.
	assumedAt map[types.NamespacedName]time.Time
}

// reserved is a cluster's total: pods, and per resource the amount (CPU in
// millicores, other resources in units).
type reserved struct {
	pods    int64
	amounts map[corev1.ResourceName]int64
}

func (t *reserved) add(r *reservation, sign int64) {
	for _, c := range r.workload.Components {
		replicas := int64(c.Replicas)
		if replicas <= 0 {
			continue
		}
		t.pods += sign * replicas
		if c.ReplicaRequirements == nil {
			continue
		}
		for name, q := range c.ReplicaRequirements.ResourceRequest {
			v := q.Value()
			if name == corev1.ResourceCPU {
				v = q.MilliValue()
			}
			t.amounts[name] += sign * v * replicas
		}
	}
}

// reservation is what one binding reserves on one cluster, as the
// workload sent to the accurate estimators: its components, a
// single-template workload being one component.
type reservation struct {
	workload estimator.AssumedWorkload
	// appliedAt is when the member first reported the workload applied.
	appliedAt time.Time
}

func newAssumeCache() *assumeCache {
	return &assumeCache{
		now:       time.Now,
		byCluster: map[string]map[types.NamespacedName]*reservation{},
		byBinding: map[types.NamespacedName][]string{},
		totals:    map[string]*reserved{},
		assumedAt: map[types.NamespacedName]time.Time{},
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

// AssumedWorkloads implements estimator.Assumptions: the unexpired
// workloads reserved on cluster, the most recently placed first.
func (a *assumeCache) AssumedWorkloads(cluster string) []estimator.AssumedWorkload {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	keys := make([]types.NamespacedName, 0, len(a.byCluster[cluster]))
	for key := range a.byCluster[cluster] {
		if now.Sub(a.assumedAt[key]) <= assumptionTTL {
			keys = append(keys, key)
		}
	}
	slices.SortFunc(keys, func(x, y types.NamespacedName) int {
		if c := a.assumedAt[y].Compare(a.assumedAt[x]); c != 0 {
			return c
		}
		return strings.Compare(x.String(), y.String())
	})
	out := make([]estimator.AssumedWorkload, len(keys))
	for i, key := range keys {
		out[i] = a.byCluster[cluster][key].workload
	}
	return out
}

// expireLocked ends, at most once a second, the reservations whose
// applied report is older than appliedGrace, or with the gate those of
// the bindings placed more than assumptionTTL ago.
func (a *assumeCache) expireLocked() {
	now := a.now()
	if now.Sub(a.lastSweep) < time.Second {
		return
	}
	if a.overcommitProtection {
		a.lastSweep = now
		for key, at := range a.assumedAt {
			if now.Sub(at) > assumptionTTL {
				a.forgetLocked(key)
			}
		}
		return
	}
	if a.applied == 0 {
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

// assume replaces the reservations of the binding key (namespaced for a
// ResourceBinding) by clusters and returns how to restore the previous
// ones (when the result could not be written).
func (a *assumeCache) assume(key types.NamespacedName, namespaced bool, spec *workv1alpha2.ResourceBindingSpec, clusters []workv1alpha2.TargetCluster) (undo func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.disabled {
		return func() {}
	}
	if a.overcommitProtection && (!namespaced || !spec.IsWorkload() || sameTargets(clusters, spec.Clusters)) {
		// Karmada assumes when it writes a new result of a ResourceBinding
		// of a workload; a decision that keeps spec.clusters writes none
		// and leaves the reservations, and their age, as they are.
		return func() {}
	}
	prev := map[string]*reservation{}
	for _, c := range a.byBinding[key] {
		prev[c] = a.byCluster[c][key]
	}
	prevAt, hadAt := a.assumedAt[key]
	a.forgetLocked(key)
	for _, tc := range clusters {
		if w, ok := a.workloadOn(spec, tc); ok {
			a.addLocked(tc.Name, key, &reservation{workload: w})
		}
	}
	if a.overcommitProtection && len(a.byBinding[key]) > 0 {
		a.assumedAt[key] = a.now()
	}
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.forgetLocked(key)
		for c, r := range prev {
			a.addLocked(c, key, r)
		}
		if hadAt {
			a.assumedAt[key] = prevAt
		}
	}
}

// sameTargets reports whether a and b place the same replicas on the same
// clusters, in the same order.
func sameTargets(a, b []workv1alpha2.TargetCluster) bool {
	return slices.EqualFunc(a, b, func(x, y workv1alpha2.TargetCluster) bool { return x.Name == y.Name && x.Replicas == y.Replicas })
}

// workloadOn is what placing tc reserves: by default the replicas placed
// there, none for a binding with components (placed without a count);
// with the gate, as Karmada assumes, a binding's components as written,
// or one component named after the resource with the replicas placed
// there and the binding's replica requirements.
func (a *assumeCache) workloadOn(spec *workv1alpha2.ResourceBindingSpec, tc workv1alpha2.TargetCluster) (estimator.AssumedWorkload, bool) {
	w := estimator.AssumedWorkload{Namespace: spec.Resource.Namespace}
	if a.overcommitProtection && len(spec.Components) > 0 {
		w.Components = make([]workv1alpha2.Component, len(spec.Components))
		for i := range spec.Components {
			spec.Components[i].DeepCopyInto(&w.Components[i])
		}
		return w, true
	}
	if tc.Replicas <= 0 || (!a.overcommitProtection && len(spec.Components) > 0) {
		return w, false
	}
	c := workv1alpha2.Component{Name: spec.Resource.Name, Replicas: tc.Replicas}
	switch rr := spec.ReplicaRequirements; {
	case rr == nil:
	case a.overcommitProtection:
		// Kept, and sent to the estimators, for minutes: a copy.
		c.ReplicaRequirements = &workv1alpha2.ComponentReplicaRequirements{
			NodeClaim: rr.NodeClaim.DeepCopy(), ResourceRequest: rr.ResourceRequest.DeepCopy(), PriorityClassName: rr.PriorityClassName,
		}
	default:
		// Only summed into the totals, as they were before.
		c.ReplicaRequirements = &workv1alpha2.ComponentReplicaRequirements{ResourceRequest: rr.ResourceRequest}
	}
	w.Components = []workv1alpha2.Component{c}
	return w, true
}

// observeApplied notes the clusters that report the binding's workload
// applied (without the gate: with it, only Healthy ends a reservation).
func (a *assumeCache) observeApplied(key types.NamespacedName, status *workv1alpha2.ResourceBindingStatus) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.overcommitProtection || len(a.byBinding[key]) == 0 {
		return
	}
	for _, item := range status.AggregatedStatus {
		if r := a.byCluster[item.ClusterName][key]; r != nil && item.Applied && r.appliedAt.IsZero() {
			r.appliedAt = a.now()
			a.applied++
		}
	}
}

// observeHealth ends, with the gate, the reservations of the binding key
// on the clusters that report its workload Healthy in status and did not
// in old: their pods run, and the estimators count them.
func (a *assumeCache) observeHealth(key types.NamespacedName, old, status *workv1alpha2.ResourceBindingStatus) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.overcommitProtection || len(a.byBinding[key]) == 0 {
		return
	}
	for _, item := range status.AggregatedStatus {
		if item.Health != workv1alpha2.ResourceHealthy || a.byCluster[item.ClusterName][key] == nil {
			continue
		}
		if !slices.ContainsFunc(old.AggregatedStatus, func(o workv1alpha2.AggregatedStatusItem) bool {
			return o.ClusterName == item.ClusterName && o.Health == workv1alpha2.ResourceHealthy
		}) {
			a.removeLocked(item.ClusterName, key)
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
	delete(a.assumedAt, key)
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
		delete(a.assumedAt, key)
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
	undo := s.assumed.assume(b.key(), b.obj.Namespaced(), b.spec, out.result.Clusters)
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
