package resourceinterpreter

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// Event reasons the facade records.
const (
	// ReasonInterpreterLayerChanged is recorded on the object whose call
	// first saw another layer (or hook) answer a (GVK, operation), e.g. a
	// customization that now shadows the built-in interpreter.
	ReasonInterpreterLayerChanged = "InterpreterLayerChanged"
	// ReasonCustomizationFailing is recorded once on a
	// ResourceInterpreterCustomization whose script starts failing, with
	// the first error and the number of objects it failed for.
	ReasonCustomizationFailing = "CustomizationFailing"
)

// DefaultFailureWindow is how long failures of a customization are
// counted before its one CustomizationFailing Event is recorded.
const DefaultFailureWindow = 5 * time.Second

// maxTrackedFailures bounds the objects remembered per failing script.
const maxTrackedFailures = 10000

var (
	answeringLayer = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "propel_resource_interpreter_answering_layer",
		Help: "1 for the layer that last answered an operation for a GVK, 0 for layers that answered it before.",
	}, []string{"operation", "gvk", "layer"})
	layerChanges = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "propel_resource_interpreter_layer_changes_total",
		Help: "Changes of the layer (or hook) answering an operation for a GVK, by the new layer.",
	}, []string{"operation", "gvk", "layer"})
)

func init() {
	metrics.Registry.MustRegister(answeringLayer, layerChanges)
}

// RecordEvents makes the facade record ReasonInterpreterLayerChanged and
// ReasonCustomizationFailing Events with r. window (DefaultFailureWindow
// when 0) is how long a customization's failures are counted before its
// Event. Call it before the facade is used.
func (i *Interpreter) RecordEvents(r record.EventRecorder, window time.Duration) {
	if window <= 0 {
		window = DefaultFailureWindow
	}
	i.recorder = r
	i.failures = &failureTracker{recorder: r, window: window, after: afterFunc, episodes: map[failureKey]*failureEpisode{}}
}

type answerKey struct {
	gvk schema.GroupVersionKind
	op  configv1alpha1.InterpreterOperation
}

// noteAnswer records a, who answers op for obj's GVK (named when the
// layer was picked, before the call), and, when that changed since the
// previous call, counts it and records an Event on obj. The first answer
// after start is not a change. It runs when a call makes a route (see
// route): an answer changes only with a layer's configuration, which
// makes the kept route stale. The unchanged case is one map read under a
// read lock.
func (i *Interpreter) noteAnswer(a Answer, obj *unstructured.Unstructured, gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) {
	if a.Layer == "" {
		return // the configuration changed between the pick and the naming
	}
	key := answerKey{gvk: gvk, op: op}
	i.answersMu.RLock()
	prev, loaded := i.answers[key]
	i.answersMu.RUnlock()
	if loaded && prev == a {
		return
	}
	i.answersMu.Lock()
	prev, loaded = i.answers[key]
	if loaded && prev == a {
		i.answersMu.Unlock()
		return
	}
	if i.answers == nil {
		i.answers = map[answerKey]Answer{}
	}
	i.answers[key] = a
	i.answersMu.Unlock()
	g := gvkString(gvk)
	answeringLayer.WithLabelValues(string(op), g, a.Layer).Set(1)
	if !loaded {
		return
	}
	was := prev
	if was.Layer != a.Layer {
		answeringLayer.WithLabelValues(string(op), g, was.Layer).Set(0)
	}
	layerChanges.WithLabelValues(string(op), g, a.Layer).Inc()
	if i.recorder != nil {
		i.recorder.Eventf(obj, corev1.EventTypeNormal, ReasonInterpreterLayerChanged,
			"%s of %s is now answered by %s (was %s)", op, g, a, was)
	}
}

// failureKey is one script: a customization's operation.
type failureKey struct {
	customization string
	op            configv1alpha1.InterpreterOperation
}

// afterFunc schedules f on its own goroutine once d has passed.
func afterFunc(d time.Duration, f func()) { time.AfterFunc(d, f) }

// failureEpisode is a script failing since first, for the objects in
// failing; its Event is recorded once, window after first.
type failureEpisode struct {
	firstErr string
	failing  map[string]struct{}
	reported bool
}

// failureTracker turns per-object script failures into one Event per
// failing episode of a customization: the episode ends when every object
// it failed for has succeeded again.
type failureTracker struct {
	recorder record.EventRecorder
	window   time.Duration
	// after runs f once d has passed; tests replace it to end a window
	// when they choose instead of waiting for it.
	after func(d time.Duration, f func())

	active   atomic.Int32
	mu       sync.Mutex
	episodes map[failureKey]*failureEpisode
}

// failed notes that a Lua script failed for obj.
func (t *failureTracker) failed(obj *unstructured.Unstructured, err error) {
	var se *luavm.ScriptError
	if !errors.As(err, &se) || se.Customization == "" {
		return
	}
	key := failureKey{customization: se.Customization, op: se.Operation}
	t.mu.Lock()
	defer t.mu.Unlock()
	ep := t.episodes[key]
	if ep == nil {
		ep = &failureEpisode{firstErr: boundedtext.Error(se.Err).Error(), failing: map[string]struct{}{}}
		t.episodes[key] = ep
		t.active.Add(1)
		t.after(t.window, func() { t.report(key, ep) })
	}
	if len(ep.failing) < maxTrackedFailures {
		ep.failing[objectID(obj)] = struct{}{}
	}
}

// succeeded notes that the script hook of layer l answered op for obj.
func (t *failureTracker) succeeded(l layer.Layer, obj *unstructured.Unstructured, op configv1alpha1.InterpreterOperation) {
	if t.active.Load() == 0 {
		return
	}
	n, ok := l.(hookNamer)
	if !ok {
		return
	}
	key := failureKey{customization: n.HookName(obj.GroupVersionKind(), op), op: op}
	t.mu.Lock()
	defer t.mu.Unlock()
	ep := t.episodes[key]
	if ep == nil {
		return
	}
	delete(ep.failing, objectID(obj))
	if len(ep.failing) == 0 && ep.reported {
		delete(t.episodes, key)
		t.active.Add(-1)
	}
}

func (t *failureTracker) report(key failureKey, ep *failureEpisode) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.episodes[key] != ep {
		return
	}
	ep.reported = true
	if len(ep.failing) == 0 {
		delete(t.episodes, key)
		t.active.Add(-1)
		return
	}
	ref := &corev1.ObjectReference{
		APIVersion: configv1alpha1.GroupVersion.String(),
		Kind:       "ResourceInterpreterCustomization",
		Name:       key.customization,
	}
	t.recorder.Eventf(ref, corev1.EventTypeWarning, ReasonCustomizationFailing,
		"%s fails for %d objects: %s", key.op, len(ep.failing), ep.firstErr)
}

// objectID tells objects apart: by UID (member copies of one template
// share kind, namespace and name), else by kind and key.
func objectID(obj *unstructured.Unstructured) string {
	if uid := obj.GetUID(); uid != "" {
		return string(uid)
	}
	return fmt.Sprintf("%s %s", obj.GroupVersionKind(), objectKey(obj))
}
