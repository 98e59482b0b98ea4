package status

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/membercluster"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// desiredStatus is the status the cluster should have after this cycle. It
// starts from the current status: what cannot be observed now keeps its
// last known value.
func (r *Reconciler) desiredStatus(ctx context.Context, cluster *clusterv1alpha1.Cluster) *clusterv1alpha1.ClusterStatus {
	desired := cluster.Status.DeepCopy()
	member, err := r.members.ForCluster(ctx, cluster)
	if err != nil {
		log.FromContext(ctx).Error(boundedtext.Error(err), "cannot build member client")
		meta.SetStatusCondition(&desired.Conditions, clientFailedReady(err))
		return desired
	}
	h := probe(ctx, member.Discovery)
	current := meta.FindStatusCondition(cluster.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
	ready := r.thresholds.adjust(cluster.Name, current, observedReady(h))
	meta.SetStatusCondition(&desired.Conditions, ready)
	if h.online && h.healthy && ready.Status == metav1.ConditionTrue {
		r.collect(ctx, cluster, member, desired)
	}
	return desired
}

// collect fills what a healthy member reports: version, APIs and, with
// resource modeling, the node and resource summaries.
func (r *Reconciler) collect(ctx context.Context, cluster *clusterv1alpha1.Cluster, m *membercluster.Member, desired *clusterv1alpha1.ClusterStatus) {
	logger := log.FromContext(ctx)
	if v, err := m.Discovery.ServerVersion(); err != nil {
		logger.Error(boundedtext.Error(err), "cannot read member version")
	} else {
		desired.KubernetesVersion = v.GitVersion
	}
	apis, cond, err := apiEnablements(m.Discovery)
	if err != nil {
		logger.Error(boundedtext.Error(err), "member discovery incomplete", "groupVersions", len(apis))
	}
	// A failed discovery that found nothing keeps the last known list: a
	// transient error must not make every API look gone.
	if len(apis) > 0 || err == nil {
		desired.APIEnablements = apis
	}
	meta.SetStatusCondition(&desired.Conditions, cond)
	if !r.opts.DisableResourceModeling {
		r.collectSummary(ctx, cluster, m, desired)
	}
}

// collectSummary sets nodeSummary and resourceSummary from the member's
// informers, once they hold a complete list.
func (r *Reconciler) collectSummary(ctx context.Context, cluster *clusterv1alpha1.Cluster, m *membercluster.Member, desired *clusterv1alpha1.ClusterStatus) {
	np, err := r.informers.NodesAndPods(cluster, m)
	if err != nil {
		log.FromContext(ctx).Error(err, "cannot start member informers")
		return
	}
	if !np.WaitSynced(ctx, min(r.opts.UpdateFrequency, r.opts.CacheSyncTimeout)) {
		log.FromContext(ctx).Info("member node and pod informers not synced yet; keeping the last summary")
		return
	}
	s := r.summaries.of(cluster, np)
	desired.NodeSummary = s.nodes.DeepCopy()
	desired.ResourceSummary = s.resources.DeepCopy()
}
