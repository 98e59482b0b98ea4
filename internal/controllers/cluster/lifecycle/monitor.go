package lifecycle

import (
	"context"
	"fmt"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/shared/names"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
)

// RBAC: Pull clusters' agents renew a Lease in karmada-cluster; it is read
// uncached, in that namespace only.
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=karmada-cluster,resources=leases,verbs=get

// healthMonitor watches over Pull clusters: when karmada-agent has neither
// changed the Ready condition nor renewed the Lease karmada-cluster/<cluster>
// within the grace period, it sets Ready to Unknown (which the controller
// turns into the unreachable taint). Push clusters are probed directly by
// the cluster status controller and are skipped here.
type healthMonitor struct {
	client client.Client
	// leases reads Leases uncached: only Pull clusters need them, and a
	// cache would hold every Lease of the control plane.
	leases client.Reader
	opts   Options
	now    func() time.Time

	mu      sync.Mutex
	records map[string]*healthRecord
}

// healthRecord is what the monitor last saw of one cluster.
type healthRecord struct {
	// probe is the last time the cluster was seen alive.
	probe time.Time
	// readyLTT is the lastTransitionTime of the Ready condition last seen.
	readyLTT *metav1.Time
	// leaseRenew is the Lease renewTime last seen.
	leaseRenew time.Time
}

func newHealthMonitor(c client.Client, leases client.Reader, opts Options) *healthMonitor {
	return &healthMonitor{client: c, leases: leases, opts: opts, now: time.Now, records: map[string]*healthRecord{}}
}

// NeedLeaderElection makes the monitor run only on the leader.
func (m *healthMonitor) NeedLeaderElection() bool { return true }

// Start checks every Pull cluster each monitor period until ctx ends.
func (m *healthMonitor) Start(ctx context.Context) error {
	logger := log.FromContext(ctx).WithName("cluster-health-monitor")
	t := time.NewTicker(m.opts.MonitorPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			m.checkAll(log.IntoContext(ctx, logger))
		}
	}
}

func (m *healthMonitor) checkAll(ctx context.Context) {
	clusters := &clusterv1alpha1.ClusterList{}
	if err := m.client.List(ctx, clusters); err != nil {
		log.FromContext(ctx).Error(err, "list clusters")
		return
	}
	for i := range clusters.Items {
		c := &clusters.Items[i]
		if c.Spec.SyncMode != clusterv1alpha1.Pull {
			continue
		}
		if err := m.check(ctx, c); err != nil {
			log.FromContext(ctx).Error(err, "monitor cluster health", "cluster", klog.KObj(c))
		}
	}
}

// check updates one Pull cluster's Ready condition if it went stale.
func (m *healthMonitor) check(ctx context.Context, cluster *clusterv1alpha1.Cluster) error {
	renew, err := m.leaseRenewTime(ctx, cluster.Name)
	if err != nil {
		return err
	}
	stale := m.observe(cluster, renew, m.now())
	if stale == nil {
		return nil
	}
	patch := client.MergeFromWithOptions(cluster.DeepCopy(), client.MergeFromWithOptimisticLock{})
	meta.SetStatusCondition(&cluster.Status.Conditions, *stale)
	if err := m.client.Status().Patch(ctx, cluster, patch); err != nil {
		return fmt.Errorf("cluster %s: set Ready %s: %w", cluster.Name, stale.Status, err)
	}
	log.FromContext(ctx).Info("pull cluster stopped reporting", "cluster", klog.KObj(cluster), "reason", stale.Reason)
	return nil
}

func (m *healthMonitor) leaseRenewTime(ctx context.Context, cluster string) (time.Time, error) {
	lease := &coordinationv1.Lease{}
	err := m.leases.Get(ctx, types.NamespacedName{Namespace: names.ClusterNamespace, Name: cluster}, lease)
	if err != nil {
		if client.IgnoreNotFound(err) == nil {
			return time.Time{}, nil
		}
		return time.Time{}, fmt.Errorf("cluster %s: get lease: %w", cluster, err)
	}
	if lease.Spec.RenewTime == nil {
		return time.Time{}, nil
	}
	return lease.Spec.RenewTime.Time, nil
}

// observe records what the cluster shows at now and returns the Ready
// condition to write when the cluster went silent for longer than the grace
// period (startup grace while no Ready condition was ever posted), or nil.
func (m *healthMonitor) observe(cluster *clusterv1alpha1.Cluster, leaseRenew, now time.Time) *metav1.Condition {
	m.mu.Lock()
	defer m.mu.Unlock()
	ready := meta.FindStatusCondition(cluster.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
	rec := m.records[cluster.Name]
	switch {
	case rec == nil && ready == nil:
		rec = &healthRecord{probe: cluster.CreationTimestamp.Time}
	case rec == nil:
		rec = &healthRecord{probe: now, readyLTT: ready.LastTransitionTime.DeepCopy()}
	case ready != nil && (rec.readyLTT == nil || !rec.readyLTT.Equal(&ready.LastTransitionTime)):
		rec.probe, rec.readyLTT = now, ready.LastTransitionTime.DeepCopy()
	}
	m.records[cluster.Name] = rec
	if leaseRenew.After(rec.leaseRenew) {
		rec.leaseRenew, rec.probe = leaseRenew, now
	}
	grace := m.opts.MonitorGracePeriod
	if ready == nil {
		grace = m.opts.StartupGracePeriod
	}
	if !now.After(rec.probe.Add(grace)) {
		return nil
	}
	cond := &metav1.Condition{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionUnknown,
		LastTransitionTime: metav1.NewTime(now).Rfc3339Copy()}
	switch {
	case ready == nil:
		cond.Reason, cond.Message = clusterv1alpha1.ClusterReasonStatusNeverUpdated, clusterv1alpha1.ClusterMessageStatusNeverUpdated
	case ready.Status != metav1.ConditionUnknown:
		cond.Reason, cond.Message = clusterv1alpha1.ClusterReasonStatusUnknown, clusterv1alpha1.ClusterMessageStatusUnknown
	default:
		return nil
	}
	rec.readyLTT = cond.LastTransitionTime.DeepCopy()
	return cond
}

// forget drops the health record of a removed cluster.
func (m *healthMonitor) forget(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.records, name)
}
