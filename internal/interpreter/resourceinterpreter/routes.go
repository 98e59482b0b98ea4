package resourceinterpreter

import (
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// route is the facade's choice for one (apiVersion, kind, operation): the
// answering layer with what a call records about it. Picking asks every
// layer above the answering one and resolves the metrics and the answer's
// name, which cost more than a native operation; a route is kept while
// every layer's configuration version is the one it was made under.
type route struct {
	versions []uint64
	layer    layer.Layer
	gvk      schema.GroupVersionKind
	answer   Answer
	metrics  *callMetrics
}

// routeKey keys routes by the strings the object carries, so that a kept
// route is found without parsing apiVersion.
type routeKey struct {
	apiVersion, kind string
	op               configv1alpha1.InterpreterOperation
	fallback         bool
}

// Routes are a shortcut, so their number and size are bounded: objects
// can carry any apiVersion and kind (a Work's manifests, say).
const (
	maxRoutes      = 4096
	maxRouteKeyLen = 256
)

// routeTable keeps routes in an immutable map replaced on every change:
// calls read it with one atomic load and no lock, and changes are rare
// (one per kind and operation, again after a configuration change).
type routeTable struct {
	// versioned are the layers' versions, nil unless every layer is
	// layer.Versioned (then nothing is kept).
	versioned []layer.Versioned
	current   atomic.Pointer[map[routeKey]*route]
	mu        sync.Mutex
}

func newRouteTable(layers []layer.Layer) *routeTable {
	t := &routeTable{}
	for _, l := range layers {
		v, ok := l.(layer.Versioned)
		if !ok {
			return t
		}
		t.versioned = append(t.versioned, v)
	}
	return t
}

// versions are the layers' configuration versions now, nil when routes
// are not kept.
func (t *routeTable) versions() []uint64 {
	if t.versioned == nil {
		return nil
	}
	out := make([]uint64, len(t.versioned))
	for idx, v := range t.versioned {
		out[idx] = v.ConfigVersion()
	}
	return out
}

// lookup returns the kept route for key if every layer is still at the
// version it was made under.
func (t *routeTable) lookup(key routeKey) *route {
	m := t.current.Load()
	if m == nil {
		return nil
	}
	r := (*m)[key]
	if r == nil {
		return nil
	}
	for idx, v := range t.versioned {
		if v.ConfigVersion() != r.versions[idx] {
			return nil
		}
	}
	return r
}

// keep stores r for key (replacing a stale route), unless routes are not
// kept, the key is too long or the table is full.
func (t *routeTable) keep(key routeKey, r *route) {
	if r.versions == nil || len(key.apiVersion)+len(key.kind) > maxRouteKeyLen {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var old map[routeKey]*route
	if m := t.current.Load(); m != nil {
		old = *m
	}
	if _, replaces := old[key]; !replaces && len(old) >= maxRoutes {
		return
	}
	next := make(map[routeKey]*route, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	next[key] = r
	t.current.Store(&next)
}

// route returns the route of op for obj, and whether it was just made
// (then the caller notes its answer: see noteAnswer). The versions are
// read before picking, so a configuration published meanwhile makes the
// route stale at once rather than kept under the new version.
func (i *Interpreter) route(obj *unstructured.Unstructured, op configv1alpha1.InterpreterOperation, fallback bool) (*route, bool, error) {
	key := routeKey{apiVersion: obj.GetAPIVersion(), kind: obj.GetKind(), op: op, fallback: fallback}
	if r := i.routes.lookup(key); r != nil {
		return r, false, nil
	}
	versions := i.routes.versions()
	gvk := obj.GroupVersionKind()
	l, err := i.pick(gvk, op, fallback)
	if err != nil {
		return nil, false, err
	}
	r := &route{versions: versions, layer: l, gvk: gvk, answer: answerOf(l, gvk, op), metrics: metricsFor(op, l.Name(), gvk)}
	i.routes.keep(key, r)
	return r, true, nil
}
