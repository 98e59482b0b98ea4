package estimatorserver

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// nodeTable is the member's nodes sorted by name with each one's
// allocatable amounts, rebuilt from the node informer only after a node
// event. Every request used to list, sort and convert the nodes again
// although nodes change far less often than requests arrive.
type nodeTable struct {
	lister corelisters.NodeLister
	// changes counts the node informer's events.
	changes atomic.Uint64

	mu sync.Mutex
	// built is the value of changes the table was built at; valid is false
	// until it is first built.
	built uint64
	valid bool
	nodes []*corev1.Node
	// allocatable[i] is nodes[i]'s allocatable amounts, all in one array
	// of listed entries.
	allocatable []resourceAmounts
	listed      int
}

func newNodeTable(lister corelisters.NodeLister) *nodeTable {
	return &nodeTable{lister: lister}
}

// handler marks the table stale on every node event.
func (t *nodeTable) handler() cache.ResourceEventHandler {
	changed := func() { t.changes.Add(1) }
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { changed() },
		UpdateFunc: func(any, any) { changed() },
		DeleteFunc: func(any) { changed() },
	}
}

// current returns the nodes sorted by name, their allocatable amounts and
// the number of amounts in all, rebuilding the table when a node event
// arrived since it was built. The slices are shared: callers must not
// change them.
func (t *nodeTable) current() ([]*corev1.Node, []resourceAmounts, int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	// An event arriving during the rebuild changes the count again, so the
	// next request rebuilds: the table is never older than the informer's
	// notifications.
	changes := t.changes.Load()
	if t.valid && t.built == changes {
		return t.nodes, t.allocatable, t.listed, nil
	}
	nodes, err := t.lister.List(labels.Everything())
	if err != nil {
		return nil, nil, 0, status.Errorf(codes.Internal, "list nodes: %v", err)
	}
	slices.SortFunc(nodes, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	listed := 0
	for _, n := range nodes {
		listed += len(n.Status.Allocatable)
	}
	amounts := make([]resourceAmount, 0, listed)
	allocatable := make([]resourceAmounts, len(nodes))
	for i, n := range nodes {
		start := len(amounts)
		for name, q := range n.Status.Allocatable {
			amounts = append(amounts, resourceAmount{name: name, value: amount(name, q)})
		}
		allocatable[i] = amounts[start:len(amounts):len(amounts)]
	}
	t.nodes, t.allocatable, t.listed, t.built, t.valid = nodes, allocatable, listed, changes, true
	return nodes, allocatable, listed, nil
}
