package membercluster

import (
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The Node and Pod informers keep records, not API objects: a member with
// tens of thousands of pods would otherwise cost kilobytes per pod even
// trimmed (a corev1.Pod is a large struct, and every ResourceList a map of
// Quantities). A record holds what the cluster status summary and the
// FederatedHPA controller read, precomputed where it can be. Records are
// read-only: the informers share them with every reader.

// identity is what the informer's store and event handlers read of an
// object's metadata: its key and resourceVersion (an update with an
// unchanged resourceVersion counts as a resync and is not delivered).
type identity struct {
	namespace, name, resourceVersion string
}

// GetObjectMeta makes records metadata accessors (meta.Accessor) without
// keeping a whole ObjectMeta per record; the key function's short-lived
// copy is cheap next to a cached one.
func (id *identity) GetObjectMeta() metav1.Object {
	return &metav1.ObjectMeta{Namespace: id.namespace, Name: id.name, ResourceVersion: id.resourceVersion}
}

// Namespace is the object's namespace ("" for a node).
func (id *identity) Namespace() string { return id.namespace }

// Name is the object's name.
func (id *identity) Name() string { return id.name }

// NodeRecord is a cached Node: its Ready condition and allocatable.
type NodeRecord struct {
	identity
	Ready       bool
	Allocatable Amounts
}

// PodRecord is a cached Pod.
type PodRecord struct {
	identity
	labels Labels
	// Deletion is the deletionTimestamp, nil when not being deleted.
	Deletion *metav1.Time
	NodeName string
	Phase    corev1.PodPhase
	// ReadyStatus is the status of the Ready condition, "" without one.
	ReadyStatus corev1.ConditionStatus
	// startTime and readySince (the Ready condition's lastTransitionTime)
	// are Unix nanoseconds, 0 when unset.
	startTime, readySince int64
	// requests is the effective request (see Requests); nil when it is
	// the one container's.
	requests *Amounts
	// Containers are the (non-init) containers' requests.
	Containers []ContainerRequests
}

// ContainerRequests are one container's resource requests.
type ContainerRequests struct {
	Name     string
	Requests Amounts
}

// StartTime is the pod's start time, the zero time when it has not started.
func (p *PodRecord) StartTime() time.Time { return timeOf(p.startTime) }

// ReadySince is the lastTransitionTime of the Ready condition.
func (p *PodRecord) ReadySince() time.Time { return timeOf(p.readySince) }

// Requests is the pod's effective request as the scheduler sees it: the
// sum of its containers' requests, raised per resource to the largest init
// container request, plus the pod overhead.
func (p *PodRecord) Requests() *Amounts {
	if p.requests == nil && len(p.Containers) == 1 {
		return &p.Containers[0].Requests
	}
	if p.requests == nil {
		return &Amounts{}
	}
	return p.requests
}

func unixNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func timeOf(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// Labels returns the pod's labels for selector matching.
func (p *PodRecord) Labels() Labels { return p.labels }

// Labels are an object's labels as sorted key, value pairs; they
// implement labels.Labels. A handful of labels cost a fraction of a map.
type Labels []string

func labelsOf(m map[string]string) Labels {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make(Labels, 0, 2*len(m))
	for _, k := range keys {
		out = append(out, k, m[k])
	}
	return out
}

// Lookup returns the value of key and whether it is set.
func (l Labels) Lookup(key string) (string, bool) {
	n := len(l) / 2
	i := sort.Search(n, func(i int) bool { return l[2*i] >= key })
	if i == n || l[2*i] != key {
		return "", false
	}
	return l[2*i+1], true
}

// Has tells whether key is set.
func (l Labels) Has(key string) bool { _, ok := l.Lookup(key); return ok }

// Get returns the value of key, "" when unset.
func (l Labels) Get(key string) string { v, _ := l.Lookup(key); return v }

// Map returns the labels as a new map.
func (l Labels) Map() map[string]string {
	if len(l) == 0 {
		return nil
	}
	m := make(map[string]string, len(l)/2)
	for i := 0; i < len(l); i += 2 {
		m[l[i]] = l[i+1]
	}
	return m
}

// The informers' initial lists hold records (see pagedRecords), so records
// are runtime.Objects. They have no kind of their own; a copy is shallow
// because records are never modified.
func (n *NodeRecord) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject returns a copy sharing the read-only parts.
func (n *NodeRecord) DeepCopyObject() runtime.Object { c := *n; return &c }

// GetObjectKind returns the empty kind: records are never serialized.
func (p *PodRecord) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject returns a copy sharing the read-only parts.
func (p *PodRecord) DeepCopyObject() runtime.Object { c := *p; return &c }

// nodeRecord is the Node and Pod informers' Node transform.
func nodeRecord(obj any) (any, error) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil // already a record
	}
	return NodeRecordOf(n), nil
}

// NodeRecordOf is the record of n.
func NodeRecordOf(n *corev1.Node) *NodeRecord {
	r := &NodeRecord{identity: identity{name: n.Name, resourceVersion: n.ResourceVersion}, Allocatable: amountsOf(n.Status.Allocatable)}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			r.Ready = c.Status == corev1.ConditionTrue
			break
		}
	}
	return r
}

// podRecord is the Node and Pod informers' Pod transform.
func podRecord(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil // already a record
	}
	return PodRecordOf(p), nil
}

// PodRecordOf is the record of p.
func PodRecordOf(p *corev1.Pod) *PodRecord {
	r := &PodRecord{
		identity: identity{namespace: p.Namespace, name: p.Name, resourceVersion: p.ResourceVersion},
		labels:   labelsOf(p.Labels), Deletion: p.DeletionTimestamp,
		NodeName: p.Spec.NodeName, Phase: internPhase(p.Status.Phase),
	}
	if p.Status.StartTime != nil {
		r.startTime = unixNanos(p.Status.StartTime.Time)
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			r.ReadyStatus, r.readySince = internStatus(c.Status), unixNanos(c.LastTransitionTime.Time)
			break
		}
	}
	if len(p.Spec.Containers) > 0 {
		r.Containers = make([]ContainerRequests, len(p.Spec.Containers))
		for i := range p.Spec.Containers {
			r.Containers[i] = ContainerRequests{Name: p.Spec.Containers[i].Name, Requests: amountsOf(p.Spec.Containers[i].Resources.Requests)}
		}
	}
	// Most pods have one container and neither init containers nor
	// overhead: their effective request is that container's.
	if len(p.Spec.Containers) != 1 || len(p.Spec.InitContainers) > 0 || len(p.Spec.Overhead) > 0 {
		req := podRequests(&p.Spec)
		r.requests = &req
	}
	return r
}

// podRequests is the effective request of a pod: the sum of its
// containers' requests, raised per resource to the largest init container
// request, plus the pod overhead.
func podRequests(spec *corev1.PodSpec) Amounts {
	var b amountsBuilder
	for i := range spec.Containers {
		b.add(spec.Containers[i].Resources.Requests)
	}
	for i := range spec.InitContainers {
		b.raise(spec.InitContainers[i].Resources.Requests)
	}
	b.add(spec.Overhead)
	return b.amounts()
}

// internPhase shares the known phases' strings instead of keeping a
// decoded copy per pod.
func internPhase(p corev1.PodPhase) corev1.PodPhase {
	for _, known := range []corev1.PodPhase{corev1.PodRunning, corev1.PodPending, corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown} {
		if p == known {
			return known
		}
	}
	return p
}

func internStatus(s corev1.ConditionStatus) corev1.ConditionStatus {
	for _, known := range []corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown} {
		if s == known {
			return known
		}
	}
	return s
}

// Pod rebuilds the parts of a Pod the record keeps: metadata, node,
// phase, start time, Ready condition and the containers' requests (in the
// compact form's units: a fraction of a byte rounds up).
func (p *PodRecord) Pod() *corev1.Pod {
	out := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: p.namespace, Name: p.name, ResourceVersion: p.resourceVersion, Labels: p.labels.Map(), DeletionTimestamp: p.Deletion},
		Spec:       corev1.PodSpec{NodeName: p.NodeName},
		Status:     corev1.PodStatus{Phase: p.Phase},
	}
	if p.startTime != 0 {
		out.Status.StartTime = &metav1.Time{Time: p.StartTime()}
	}
	if p.ReadyStatus != "" {
		out.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: p.ReadyStatus, LastTransitionTime: metav1.Time{Time: p.ReadySince()}}}
	}
	for i := range p.Containers {
		out.Spec.Containers = append(out.Spec.Containers, corev1.Container{Name: p.Containers[i].Name,
			Resources: corev1.ResourceRequirements{Requests: p.Containers[i].Requests.ResourceList()}})
	}
	return out
}
