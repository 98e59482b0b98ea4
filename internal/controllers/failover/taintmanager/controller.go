package taintmanager

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/app/controllermanager/recorder"
	"github.com/propel-mc/propel/internal/controllers/failover/eviction"
	"github.com/propel-mc/propel/internal/shared/index"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// RBAC: NoExecute taints evict bindings from a cluster (update).
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=work.karmada.io,resources=resourcebindings;clusterresourcebindings,verbs=get;list;watch;update

// ControllerName is Karmada's name of the taint manager.
const ControllerName = "taint-manager"

// recheckInterval is how often a cluster with NoExecute taints is looked
// at again (Karmada's fixed 10s).
const recheckInterval = 10 * time.Second

// Options are the taint manager's flags.
type Options struct {
	// EnableEviction is --enable-no-execute-taint-eviction; without it the
	// taint manager does nothing.
	EnableEviction bool
	// PurgeMode is --no-execute-taint-eviction-purge-mode, for bindings
	// without spec.failover.cluster: Directly, anything else Gracefully.
	PurgeMode policyv1alpha1.PurgeMode
	// EvictionRate is --resource-eviction-rate: evictions per second per
	// worker at most (0: one every 30 minutes).
	EvictionRate float32
	// StatePreservation is the StatefulFailoverInjection gate.
	StatePreservation bool
	// Workers per queue (Karmada: 3).
	Workers int
}

// TaintManager is the taint manager: a Cluster controller feeding two
// eviction queues.
type TaintManager struct {
	client   client.Client
	recorder record.EventRecorder
	opts     Options
	now      func() time.Time
	rb, crb  *evictionQueue
}

// New returns the taint manager; SetupWithManager wires it.
func New(opts Options) *TaintManager {
	if opts.Workers <= 0 {
		opts.Workers = 3
	}
	return &TaintManager{opts: opts, now: time.Now}
}

// SetupWithManager registers the cluster controller and the eviction
// workers with mgr, whose cache must have internal/shared/index's binding index.
func (m *TaintManager) SetupWithManager(mgr ctrl.Manager) error {
	m.client = mgr.GetClient()
	m.recorder = recorder.For(mgr, ControllerName)
	m.rb = newEvictionQueue("binding-eviction", m.opts, m.evict)
	m.crb = newEvictionQueue("cluster-binding-eviction", m.opts, m.evict)
	if err := mgr.Add(m.rb); err != nil {
		return err
	}
	if err := mgr.Add(m.crb); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).Named(ControllerName).
		For(&clusterv1alpha1.Cluster{}).
		Complete(m)
}

// Reconcile queues, for eviction, the bindings on a cluster with
// NoExecute taints, and looks at the cluster again while they last.
func (m *TaintManager) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx).WithValues("cluster", klog.KRef("", req.Name))
	ctx = logr.NewContext(ctx, logger)
	cluster := &clusterv1alpha1.Cluster{}
	if err := m.client.Get(ctx, req.NamespacedName, cluster); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !m.opts.EnableEviction {
		return ctrl.Result{}, nil
	}
	taints := noExecuteTaints(cluster.Spec.Taints)
	if len(taints) == 0 {
		return ctrl.Result{}, nil
	}
	now := m.now()
	for _, list := range []client.ObjectList{&workv1alpha2.ResourceBindingList{}, &workv1alpha2.ClusterResourceBindingList{}} {
		if err := m.client.List(ctx, list, client.MatchingFields{index.BindingByTargetCluster: cluster.Name}); err != nil {
			return ctrl.Result{}, fmt.Errorf("list bindings on cluster %s: %w", cluster.Name, err)
		}
		for _, b := range bindingsOf(list) {
			delay := evictionDelay(taints, tolerationsOf(b), now)
			if delay == never {
				continue
			}
			m.queueFor(b).add(evictionKey{Cluster: cluster.Name, Namespace: b.GetNamespace(), Name: b.GetName()}, delay)
		}
	}
	return ctrl.Result{RequeueAfter: recheckInterval}, nil
}

func (m *TaintManager) queueFor(b workv1alpha2.Binding) *evictionQueue {
	if b.Namespaced() {
		return m.rb
	}
	return m.crb
}

func bindingsOf(list client.ObjectList) []workv1alpha2.Binding {
	var out []workv1alpha2.Binding
	switch l := list.(type) {
	case *workv1alpha2.ResourceBindingList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	case *workv1alpha2.ClusterResourceBindingList:
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	}
	return out
}

// evict decides again on fresh objects and, when the binding must leave
// the cluster now, evicts it. It returns how long to wait before looking
// again (0: done) or an error to retry with backoff.
func (m *TaintManager) evict(ctx context.Context, key evictionKey) (time.Duration, error) {
	logger := log.FromContext(ctx).WithValues("cluster", klog.KRef("", key.Cluster))
	b := workv1alpha2.NewBindingFor(key.namespacedName())
	if err := m.client.Get(ctx, key.namespacedName(), b); err != nil {
		return 0, client.IgnoreNotFound(err)
	}
	logger = logger.WithValues("binding", klog.KObj(b))
	if !b.GetDeletionTimestamp().IsZero() || !targets(b, key.Cluster) {
		return 0, nil
	}
	cluster := &clusterv1alpha1.Cluster{}
	if err := m.client.Get(ctx, client.ObjectKey{Name: key.Cluster}, cluster); err != nil {
		return 0, client.IgnoreNotFound(err)
	}
	taints := noExecuteTaints(cluster.Spec.Taints)
	if !m.opts.EnableEviction || len(taints) == 0 {
		return 0, nil
	}
	switch delay := evictionDelay(taints, tolerationsOf(b), m.now()); {
	case delay == never:
		return 0, nil
	case delay > 0:
		return delay, nil
	}
	opts, err := m.taskOptions(b, key.Cluster)
	if err != nil {
		return 0, fmt.Errorf("%s: evict from cluster %s: %w", workv1alpha2.BindingName(b), key.Cluster, err)
	}
	if !eviction.EvictCluster(b, key.Cluster, opts) {
		return 0, nil
	}
	if err := m.client.Update(ctx, b); err != nil {
		return 0, m.writeFailed(b, key.Cluster, err)
	}
	logger.Info("evicted binding from cluster with untolerated NoExecute taint", "purgeMode", opts.PurgeMode)
	return 0, nil
}

func targets(b workv1alpha2.Binding, cluster string) bool {
	for _, tc := range b.BindingSpec().Clusters {
		if tc.Name == cluster {
			return true
		}
	}
	return false
}

// taskOptions are the task fields of a taint eviction: producer
// TaintManager, reason TaintUntolerated, the purge mode, and (gate
// StatefulFailoverInjection, rules set) the preserved label state; no
// message, grace period, suppressDeletion or clustersBeforeFailover, as
// in Karmada. The task is stamped now, which saves the graceful-eviction
// controller a write.
func (m *TaintManager) taskOptions(b workv1alpha2.Binding, cluster string) (eviction.Options, error) {
	opts := eviction.Options{
		PurgeMode: m.purgeMode(b), Producer: workv1alpha2.EvictionProducerTaintManager,
		Reason: workv1alpha2.EvictionReasonTaintUntolerated, CreationTimestamp: eviction.Now(m.now()),
	}
	if f := b.BindingSpec().Failover; m.opts.StatePreservation && f != nil && f.Cluster != nil &&
		f.Cluster.StatePreservation != nil && len(f.Cluster.StatePreservation.Rules) > 0 {
		state, err := eviction.PreservedLabelStateOf(b, cluster, f.Cluster.StatePreservation.Rules)
		if err != nil {
			return opts, err
		}
		opts.PreservedLabelState = state
	}
	return opts, nil
}

// purgeMode is spec.failover.cluster.purgeMode (Gracefully when empty),
// else the flag's (Directly, or Gracefully for any other value).
func (m *TaintManager) purgeMode(b workv1alpha2.Binding) policyv1alpha1.PurgeMode {
	if f := b.BindingSpec().Failover; f != nil && f.Cluster != nil {
		if f.Cluster.PurgeMode == "" {
			return policyv1alpha1.PurgeModeGracefully
		}
		return f.Cluster.PurgeMode
	}
	if m.opts.PurgeMode == policyv1alpha1.PurgeModeDirectly {
		return policyv1alpha1.PurgeModeDirectly
	}
	return policyv1alpha1.PurgeModeGracefully
}

// writeFailed records EvictWorkloadFromClusterFailed (unless the write
// only lost a race, which the retry settles) and returns the error.
func (m *TaintManager) writeFailed(b workv1alpha2.Binding, cluster string, err error) error {
	if !apierrors.IsConflict(err) {
		eviction.RecordFailed(m.recorder, b, cluster)
	}
	return fmt.Errorf("%s: evict from cluster %s: %w", workv1alpha2.BindingName(b), cluster, err)
}
