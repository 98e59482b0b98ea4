package estimatorserver

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	resourcehelper "k8s.io/component-helpers/resource"
)

// nodeUsage is what the unfinished pods bound to one node take from it.
type nodeUsage struct {
	pods     int64
	requests map[corev1.ResourceName]int64
}

// podShare is one pod's part of its node's usage, kept so that an update
// or a delete takes back exactly what the pod added.
type podShare struct {
	node     string
	requests map[corev1.ResourceName]int64
}

// usageLedger keeps every node's usage up to date from the pod informer's
// events. A request then reads one entry per node instead of summing the
// requests of every pod again: the summing was the largest cost of an
// estimate, and it grew with the pods of the member on every call.
type usageLedger struct {
	mu     sync.RWMutex
	byNode map[string]*nodeUsage
	byPod  map[string]podShare
}

func newUsageLedger() *usageLedger {
	return &usageLedger{byNode: map[string]*nodeUsage{}, byPod: map[string]podShare{}}
}

// shareOf is what pod takes from its node: nothing when it is not bound or
// has finished.
func shareOf(pod *corev1.Pod) podShare {
	if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return podShare{}
	}
	requests := map[corev1.ResourceName]int64{}
	for name, q := range resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}) {
		requests[name] = amount(name, q)
	}
	return podShare{node: pod.Spec.NodeName, requests: requests}
}

// set replaces the share recorded under key.
func (l *usageLedger) set(key string, share podShare) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if old, ok := l.byPod[key]; ok {
		l.apply(old, -1)
		delete(l.byPod, key)
	}
	if share.node != "" {
		l.apply(share, 1)
		l.byPod[key] = share
	}
}

// apply adds (sign 1) or removes (sign -1) share from its node; a node
// left with no pods is forgotten so that deleted nodes do not accumulate.
func (l *usageLedger) apply(share podShare, sign int64) {
	u := l.byNode[share.node]
	if u == nil {
		u = &nodeUsage{requests: map[corev1.ResourceName]int64{}}
		l.byNode[share.node] = u
	}
	u.pods += sign
	for name, v := range share.requests {
		u.requests[name] += sign * v
	}
	if u.pods <= 0 {
		delete(l.byNode, share.node)
	}
}

// handler is the pod informer's event handler feeding the ledger.
func (l *usageLedger) handler() cache.ResourceEventHandler {
	record := func(obj any) {
		if pod, ok := obj.(*corev1.Pod); ok {
			if key, err := cache.MetaNamespaceKeyFunc(pod); err == nil {
				l.set(key, shareOf(pod))
			}
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    record,
		UpdateFunc: func(_, obj any) { record(obj) },
		DeleteFunc: func(obj any) {
			if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
				l.set(key, podShare{})
			}
		},
	}
}

// freeOn returns node n's free capacity: its allocatable amounts less the
// usage recorded for it, appended to amounts (see snapshot). Callers hold
// the read lock (see read).
func (l *usageLedger) freeOn(n *corev1.Node, allocatable resourceAmounts, amounts []resourceAmount) (nodeCapacity, []resourceAmount) {
	start := len(amounts)
	amounts = append(amounts, allocatable...)
	c := nodeCapacity{node: n, free: amounts[start:len(amounts):len(amounts)]}
	c.pods = c.free.get(corev1.ResourcePods)
	if u := l.byNode[n.Name]; u != nil {
		c.pods -= u.pods
		for name, v := range u.requests {
			// A resource the node does not list holds nothing either way.
			c.free.sub(name, v)
		}
	}
	return c, amounts
}

// read runs f under the ledger's read lock.
func (l *usageLedger) read(f func()) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	f()
}
