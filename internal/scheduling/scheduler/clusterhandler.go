package scheduler

import (
	"context"
	"maps"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/scheduling/scheduler/affinity"
	"github.com/propel-mc/propel/internal/scheduling/scheduler/metrics"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// clusterHandler requeues the bindings a cluster change may affect: on
// update when the cluster starts deleting (judged on the new object), its
// labels or generation (spec, e.g. taints) change (judged on the old and
// the new object) or its status.apiEnablements change (judged on the new
// object); on add and delete judged on that object. Clusters
// of the initial list requeue nothing: every binding is queued by its own
// initial event.
type clusterHandler struct{ s *Scheduler }

func (h *clusterHandler) Create(ctx context.Context, e event.CreateEvent, q queue) {
	if c, ok := e.Object.(*clusterv1alpha1.Cluster); ok && !e.IsInInitialList {
		h.s.requeueAffected(ctx, q, c)
	}
}

func (h *clusterHandler) Update(ctx context.Context, e event.UpdateEvent, q queue) {
	oldC, ok1 := e.ObjectOld.(*clusterv1alpha1.Cluster)
	newC, ok2 := e.ObjectNew.(*clusterv1alpha1.Cluster)
	if !ok1 || !ok2 {
		return
	}
	if !apiequality.Semantic.DeepEqual(oldC.Status.ResourceSummary, newC.Status.ResourceSummary) {
		h.s.assumed.summaryChanged(newC.Name)
	}
	switch {
	case oldC.DeletionTimestamp == nil && newC.DeletionTimestamp != nil:
		h.s.requeueAffected(ctx, q, newC)
	case !maps.Equal(oldC.Labels, newC.Labels) || oldC.Generation != newC.Generation:
		h.s.requeueAffected(ctx, q, oldC, newC)
	case !apiequality.Semantic.DeepEqual(oldC.Status.APIEnablements, newC.Status.APIEnablements):
		// Not in Karmada, whose scheduler leaves a binding that found no
		// cluster with its API (NoClusterFit, not retried) unscheduled until
		// something else changes: a workload created right after its
		// cluster joined, before the cluster status listed the API, stayed
		// unscheduled. Bindings already placed see no change (no write).
		h.s.requeueAffected(ctx, q, newC)
	}
}

func (h *clusterHandler) Delete(ctx context.Context, e event.DeleteEvent, q queue) {
	if c, ok := e.Object.(*clusterv1alpha1.Cluster); ok {
		h.s.requeueAffected(ctx, q, c)
	}
}

func (h *clusterHandler) Generic(context.Context, event.GenericEvent, queue) {}

// requeueAffected enqueues every admitted binding whose effective affinity
// is absent or matches one of clusters, and every binding using
// clusterAffinities whose generation the scheduler has not observed yet.
func (s *Scheduler) requeueAffected(ctx context.Context, q queue, clusters ...*clusterv1alpha1.Cluster) {
	bindings, err := workv1alpha2.ListBindings(ctx, s.client, "", true, client.UnsafeDisableDeepCopy)
	if err != nil {
		logf.FromContext(ctx).Error(err, "list bindings to requeue after a cluster change", "cluster", klog.KRef("", clusters[0].Name))
	}
	for _, b := range bindings {
		s.requeueIfAffected(q, b, clusters)
	}
}

func (s *Scheduler) requeueIfAffected(q queue, obj client.Object, clusters []*clusterv1alpha1.Cluster) {
	b, ok := wrap(obj)
	if !ok || !s.admits(b) || b.spec.Placement == nil {
		return
	}
	p := b.spec.Placement
	if len(p.ClusterAffinities) > 0 && b.status.SchedulerObservedGeneration != obj.GetGeneration() {
		s.enqueue(q, b)
		metrics.BindingQueued(metrics.EventClusterChanged)
		return
	}
	m := affinity.MustCompile(eventAffinity(p, b.status.SchedulerObservedAffinityName))
	for _, c := range clusters {
		if m.Matches(c) {
			s.enqueue(q, b)
			metrics.BindingQueued(metrics.EventClusterChanged)
			return
		}
	}
}

// eventAffinity is the affinity cluster events are judged against:
// clusterAffinity, or the clusterAffinities term named observed (the first
// term when none has that name); nil when there is none.
func eventAffinity(p *policyv1alpha1.Placement, observed string) *policyv1alpha1.ClusterAffinity {
	if p.ClusterAffinity != nil {
		return p.ClusterAffinity
	}
	if len(p.ClusterAffinities) == 0 {
		return nil
	}
	for i := range p.ClusterAffinities {
		if p.ClusterAffinities[i].AffinityName == observed {
			return &p.ClusterAffinities[i].ClusterAffinity
		}
	}
	return &p.ClusterAffinities[0].ClusterAffinity
}
