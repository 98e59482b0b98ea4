package estimatorserver

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/propel-mc/propel/internal/scheduling/estimatorwire"
	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/pb"
	"github.com/propel-mc/propel/internal/scheduling/estimatorwire/service"
)

// Estimator answers the estimator RPCs for one member cluster from
// informers over its Nodes and unfinished Pods, and over its
// ResourceQuotas with WithResourceQuotaEstimate.
type Estimator struct {
	cluster string
	kube    kubernetes.Interface
	factory informers.SharedInformerFactory
	// nodeTable is the nodes and their allocatable amounts, kept by the
	// node informer's events.
	nodeTable *nodeTable
	pods      cache.SharedIndexInformer
	// usage is every node's usage, kept by the pod informer's events.
	usage *usageLedger
	// usageSynced reports when usage has seen the pods' first list.
	usageSynced cache.InformerSynced
	// quotas is every namespace's ResourceQuotas, kept by their
	// informer's events; nil unless WithResourceQuotaEstimate.
	quotas       *quotaLedger
	quotasSynced cache.InformerSynced
	now          func() time.Time
	// running tracks the pod informer started by Start.
	running sync.WaitGroup

	// Methods the estimator service adds later answer Unimplemented.
	service.UnimplementedEstimatorServer
}

// Option changes what an Estimator reads.
type Option func(*Estimator)

// WithResourceQuotaEstimate caps every answer by the ResourceQuotas of the
// request's namespace, as Karmada's estimator does under the
// ResourceQuotaEstimate feature gate (its ResourceQuotaEstimator plugin).
func WithResourceQuotaEstimate() Option {
	return func(e *Estimator) {
		quotas := e.factory.Core().V1().ResourceQuotas().Informer()
		e.quotas = newQuotaLedger()
		registration, _ := quotas.AddEventHandler(e.quotas.handler())
		e.quotasSynced = registration.HasSynced
	}
}

// New returns the estimator of cluster, reading the member through kube.
// Call Start before serving.
func New(cluster string, kube kubernetes.Interface, opts ...Option) *Estimator {
	factory := informers.NewSharedInformerFactory(kube, 0)
	nodes := factory.Core().V1().Nodes()
	table := newNodeTable(nodes.Lister())
	_, _ = nodes.Informer().AddEventHandler(table.handler()) // cannot fail: the informer has not started
	pods := coreinformers.NewFilteredPodInformer(kube, metav1.NamespaceAll, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		func(o *metav1.ListOptions) {
			o.FieldSelector = fields.AndSelectors(
				fields.OneTermNotEqualSelector("status.phase", string(corev1.PodSucceeded)),
				fields.OneTermNotEqualSelector("status.phase", string(corev1.PodFailed)),
			).String()
		})
	_ = pods.SetTransform(slimPod) // cannot fail: the informer has not started
	usage := newUsageLedger()
	registration, _ := pods.AddEventHandler(usage.handler())
	e := &Estimator{cluster: cluster, kube: kube, factory: factory, nodeTable: table, pods: pods,
		usage: usage, usageSynced: registration.HasSynced, now: time.Now}
	for _, o := range opts {
		o(e)
	}
	return e
}

// Start runs the informers until ctx ends and waits for their first list.
func (e *Estimator) Start(ctx context.Context) error {
	e.factory.Start(ctx.Done())
	e.running.Go(func() { e.pods.Run(ctx.Done()) })
	for typ, ok := range e.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("cluster %s: %v informer did not sync", e.cluster, typ)
		}
	}
	if !cache.WaitForCacheSync(ctx.Done(), e.pods.HasSynced, e.usageSynced) {
		return fmt.Errorf("cluster %s: pod informer did not sync", e.cluster)
	}
	if e.quotas != nil && !cache.WaitForCacheSync(ctx.Done(), e.quotasSynced) {
		return fmt.Errorf("cluster %s: resource quota informer did not sync", e.cluster)
	}
	return nil
}

// Shutdown waits for the informers to stop once the context given to Start
// has ended.
func (e *Estimator) Shutdown() {
	e.factory.Shutdown()
	e.running.Wait()
}

// checkCluster rejects requests meant for another cluster, as Karmada's
// estimator does.
func (e *Estimator) checkCluster(cluster string) error {
	if cluster != e.cluster {
		return status.Errorf(codes.InvalidArgument, "cluster name does not match: got %q, this estimator serves %q", cluster, e.cluster)
	}
	return nil
}

// snapshot is the free capacity of every node now.
func (e *Estimator) snapshot(ctx context.Context) ([]nodeCapacity, error) {
	nodes, allocatable, listed, err := e.nodeTable.current()
	if err != nil {
		return nil, err
	}
	out := make([]nodeCapacity, len(nodes))
	amounts := make([]resourceAmount, 0, listed)
	e.usage.read(func() {
		for i, n := range nodes {
			out[i], amounts = e.usage.freeOn(n, allocatable[i], amounts)
		}
	})
	return out, interrupted(ctx)
}

// estimateOnNodes runs one estimate at extension point (timed, see
// timedEstimate): onNodes on every node's free capacity now, less the
// assumed workloads, capped by byQuota given the same assumed workloads.
func (e *Estimator) estimateOnNodes(ctx context.Context, assumedPB []*pb.AssumedWorkload, point string,
	onNodes func([]nodeCapacity) (int64, error), byQuota func([]assumedComponent) int64) (int64, error) {
	assumed, err := decodeAssumed(ctx, assumedPB)
	if err != nil {
		return 0, err
	}
	nodes, err := e.snapshot(ctx)
	if err != nil {
		return 0, err
	}
	if err := deductAssumed(ctx, nodes, assumed); err != nil {
		return 0, err
	}
	return timedEstimate(point, func() (int64, error) { return onNodes(nodes) }, func() int64 { return byQuota(assumed) })
}

// assumedComponent is one decoded component of an assumed workload.
type assumedComponent struct {
	namespace     string
	priorityClass string
	component
}

// decodeAssumed decodes the request's assumed workloads.
func decodeAssumed(ctx context.Context, assumed []*pb.AssumedWorkload) ([]assumedComponent, error) {
	n := 0
	for i := range assumed {
		n += len(assumed[i].GetComponents())
	}
	if n > estimatorwire.MaxRequestComponents {
		return nil, status.Errorf(codes.InvalidArgument, "assumedWorkloads: %d components, at most %d", n, estimatorwire.MaxRequestComponents)
	}
	out := make([]assumedComponent, 0, n)
	for i := range assumed {
		for j, c := range assumed[i].GetComponents() {
			if err := interrupted(ctx); err != nil {
				return nil, err
			}
			r, err := decodeRequirement(c.GetReplicaRequirements().GetNodeClaim(), c.GetReplicaRequirements().GetResourceRequestBytes())
			if err != nil {
				return nil, invalid("assumedWorkloads[%d].components[%d].replicaRequirements.%v", i, j, err)
			}
			out = append(out, assumedComponent{namespace: assumed[i].GetNamespace(), priorityClass: c.GetReplicaRequirements().GetPriorityClassName(),
				component: component{req: r, replicas: int64(c.GetReplicas())}})
		}
	}
	return out, nil
}

// deductAssumed packs the assumed workloads onto nodes.
func deductAssumed(ctx context.Context, nodes []nodeCapacity, assumed []assumedComponent) error {
	for _, c := range assumed {
		if c.replicas > 0 {
			if _, err := place(ctx, nodes, c.req, c.replicas); err != nil {
				return err
			}
		}
	}
	return nil
}

// MaxAvailableReplicas answers how many replicas the cluster holds.
func (e *Estimator) MaxAvailableReplicas(ctx context.Context, req *pb.MaxAvailableReplicasRequest) (*pb.MaxAvailableReplicasResponse, error) {
	if err := e.checkCluster(req.Cluster); err != nil {
		return nil, err
	}
	r, err := decodeRequirement(req.GetReplicaRequirements().GetNodeClaim(), req.GetReplicaRequirements().GetResourceRequestBytes())
	if err != nil {
		return nil, invalid("replicaRequirements.%v", err)
	}
	rr := req.GetReplicaRequirements()
	n, err := e.estimateOnNodes(ctx, req.AssumedWorkloads, extensionEstimateReplicas,
		func(nodes []nodeCapacity) (int64, error) { return maxReplicas(ctx, nodes, r) },
		func(assumed []assumedComponent) int64 {
			return e.maxByQuota(rr.GetNamespace(), []quotaDemand{{priorityClass: rr.GetPriorityClassName(), request: r.request, count: 1}}, assumed)
		})
	if err != nil {
		return nil, err
	}
	return &pb.MaxAvailableReplicasResponse{MaxReplicas: int32(n)}, nil
}

// MaxAvailableComponentSets answers how many complete component sets the
// cluster holds.
func (e *Estimator) MaxAvailableComponentSets(ctx context.Context, req *pb.MaxAvailableComponentSetsRequest) (*pb.MaxAvailableComponentSetsResponse, error) {
	if err := e.checkCluster(req.Cluster); err != nil {
		return nil, err
	}
	if len(req.Components) == 0 {
		return nil, status.Error(codes.InvalidArgument, "components: at least one is required")
	}
	comps := make([]component, 0, len(req.Components))
	demands := make([]quotaDemand, 0, len(req.Components))
	for i, c := range req.Components {
		if err := interrupted(ctx); err != nil {
			return nil, err
		}
		r, err := decodeRequirement(c.GetReplicaRequirements().GetNodeClaim(), c.GetReplicaRequirements().GetResourceRequestBytes())
		if err != nil {
			return nil, invalid("components[%d] (%q).replicaRequirements.%v", i, c.GetName(), err)
		}
		comps = append(comps, component{req: r, replicas: int64(c.GetReplicas())})
		demands = append(demands, quotaDemand{priorityClass: c.GetReplicaRequirements().GetPriorityClassName(), request: r.request, count: int64(c.GetReplicas())})
	}
	// Largest replicas first: first-fit packs them better.
	slices.SortStableFunc(comps, func(a, b component) int {
		return compareSize(b.req, a.req)
	})
	sets, err := e.estimateOnNodes(ctx, req.AssumedWorkloads, extensionEstimateComponents,
		func(nodes []nodeCapacity) (int64, error) { return maxSets(ctx, nodes, comps) },
		func(assumed []assumedComponent) int64 { return e.maxByQuota(req.GetNamespace(), demands, assumed) })
	if err != nil {
		return nil, err
	}
	return &pb.MaxAvailableComponentSetsResponse{MaxSets: int32(min(sets, math.MaxInt32))}, nil
}

// maxByQuota is the quota step's answer for set in namespace: unlimited
// without WithResourceQuotaEstimate or a namespace (a cluster-scoped
// workload, which no quota charges). Only the assumed workloads of the
// same namespace are charged to its quotas.
func (e *Estimator) maxByQuota(namespace string, set []quotaDemand, assumed []assumedComponent) int64 {
	if e.quotas == nil || namespace == "" {
		return unlimited
	}
	limits := e.quotas.limits(namespace)
	if len(limits) == 0 {
		return unlimited
	}
	var charged []quotaDemand
	for _, a := range assumed {
		if a.namespace == namespace {
			charged = append(charged, quotaDemand{priorityClass: a.priorityClass, request: a.req.request, count: a.replicas})
		}
	}
	return maxByQuota(limits, set, charged)
}

// compareSize orders requirements by CPU, then memory.
func compareSize(a, b *requirement) int {
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if x, y := a.request[name], b.request[name]; x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// GetUnschedulableReplicas counts the workload's pods that have been
// unschedulable for longer than the threshold.
func (e *Estimator) GetUnschedulableReplicas(ctx context.Context, req *pb.UnschedulableReplicasRequest) (*pb.UnschedulableReplicasResponse, error) {
	if err := e.checkCluster(req.Cluster); err != nil {
		return nil, err
	}
	ref := req.GetResource()
	start := time.Now()
	selector, err := e.workloadSelector(ctx, ref)
	observeUnschedulableStep(stepGetObjectFromCache, start, err)
	if err != nil {
		return nil, err
	}
	threshold := time.Duration(max(req.UnschedulableThreshold, 0))
	defer observeUnschedulableStep(stepGetWorkloadUnschedulablePods, time.Now(), nil)
	objs, err := e.pods.GetIndexer().ByIndex(cache.NamespaceIndex, ref.GetNamespace())
	if err != nil {
		return nil, status.Errorf(codes.Internal, "list pods: %v", err)
	}
	now := e.now()
	n := int32(0)
	for _, o := range objs {
		if err := interrupted(ctx); err != nil {
			return nil, err
		}
		p := o.(*corev1.Pod)
		if p.Spec.NodeName != "" || p.DeletionTimestamp != nil || !selector.Matches(labels.Set(p.Labels)) {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable &&
				now.Sub(c.LastTransitionTime.Time) >= threshold {
				n++
				break
			}
		}
	}
	return &pb.UnschedulableReplicasResponse{UnschedulableReplicas: n}, nil
}

// workloadSelector reads the workload's pod selector from the member.
func (e *Estimator) workloadSelector(ctx context.Context, ref *pb.ObjectReference) (labels.Selector, error) {
	var sel *metav1.LabelSelector
	var err error
	switch {
	case ref.GetApiVersion() == "apps/v1" && ref.GetKind() == "Deployment":
		d, getErr := e.kube.AppsV1().Deployments(ref.GetNamespace()).Get(ctx, ref.GetName(), metav1.GetOptions{})
		if err = getErr; err == nil {
			sel = d.Spec.Selector
		}
	case ref.GetApiVersion() == "apps/v1" && ref.GetKind() == "ReplicaSet":
		rs, getErr := e.kube.AppsV1().ReplicaSets(ref.GetNamespace()).Get(ctx, ref.GetName(), metav1.GetOptions{})
		if err = getErr; err == nil {
			sel = rs.Spec.Selector
		}
	case ref.GetApiVersion() == "apps/v1" && ref.GetKind() == "StatefulSet":
		ss, getErr := e.kube.AppsV1().StatefulSets(ref.GetNamespace()).Get(ctx, ref.GetName(), metav1.GetOptions{})
		if err = getErr; err == nil {
			sel = ss.Spec.Selector
		}
	default:
		return nil, status.Errorf(codes.Unimplemented, "resource %s %s: only apps/v1 Deployment, ReplicaSet and StatefulSet are supported", ref.GetApiVersion(), ref.GetKind())
	}
	if apierrors.IsNotFound(err) {
		return nil, status.Errorf(codes.NotFound, "%s %s/%s not found", ref.GetKind(), ref.GetNamespace(), ref.GetName())
	}
	if err != nil {
		return nil, status.Errorf(codes.Unavailable, "get %s %s/%s: %v", ref.GetKind(), ref.GetNamespace(), ref.GetName(), err)
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "%s %s/%s: selector: %v", ref.GetKind(), ref.GetNamespace(), ref.GetName(), err)
	}
	return s, nil
}
