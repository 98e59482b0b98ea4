package templatestatus

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// fakeTemplates is an in-memory template store with resourceVersions.
type fakeTemplates struct {
	obj       *unstructured.Unstructured
	writes    int
	conflicts int // conflicts to return before accepting a write
}

func (f *fakeTemplates) Get(_ context.Context, gvk schema.GroupVersionKind, ns, name string) (*unstructured.Unstructured, error) {
	if f.obj == nil {
		return nil, apierrors.NewNotFound(schema.GroupResource{Group: gvk.Group, Resource: "deployments"}, name)
	}
	return f.obj.DeepCopy(), nil
}

func (f *fakeTemplates) UpdateStatus(_ context.Context, obj *unstructured.Unstructured) error {
	if f.conflicts > 0 {
		f.conflicts--
		return apierrors.NewConflict(schema.GroupResource{Resource: "deployments"}, obj.GetName(), nil)
	}
	if obj.GetResourceVersion() != f.obj.GetResourceVersion() {
		return apierrors.NewConflict(schema.GroupResource{Resource: "deployments"}, obj.GetName(), nil)
	}
	f.writes++
	f.obj = obj.DeepCopy()
	f.obj.SetResourceVersion(obj.GetResourceVersion() + "+")
	return nil
}

func template() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]interface{}{"name": "nginx", "namespace": "default", "uid": "u1", "generation": int64(1), "resourceVersion": "1"},
		"spec":     map[string]interface{}{"replicas": int64(3)},
	}}
}

func items(ready ...int) []workv1alpha2.AggregatedStatusItem {
	var out []workv1alpha2.AggregatedStatusItem
	for i, r := range ready {
		raw, _ := json.Marshal(map[string]interface{}{"replicas": r, "readyReplicas": r, "generation": 1, "observedGeneration": 1, "resourceTemplateGeneration": 1})
		out = append(out, workv1alpha2.AggregatedStatusItem{ClusterName: string(rune('a' + i)), Applied: true, Status: &runtime.RawExtension{Raw: raw}})
	}
	return out
}

var ref = workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "nginx", UID: "u1"}

func TestSync(t *testing.T) {
	ctx := context.Background()
	store := &fakeTemplates{obj: template(), conflicts: 1}
	s := &Syncer{Reader: store, Writer: store, Aggregator: resourceinterpreter.New(native.New())}

	res, err := s.Sync(ctx, ref, items(2, 1))
	if err != nil || res != Updated || store.writes != 1 {
		t.Fatalf("first sync: %s %v writes %d", res, err, store.writes)
	}
	status := store.obj.Object["status"].(map[string]interface{})
	if status["readyReplicas"] != int64(3) || status["observedGeneration"] != int64(1) {
		t.Fatalf("aggregated status %v", status)
	}
	if res, err := s.Sync(ctx, ref, items(2, 1)); err != nil || res != Unchanged || store.writes != 1 {
		t.Fatalf("same items: %s %v writes %d", res, err, store.writes)
	}

	other := ref
	other.UID = types.UID("u2")
	if res, err := s.Sync(ctx, other, items(5)); err != nil || res != NotFound {
		t.Fatalf("replaced template: %s %v", res, err)
	}
	store.obj = nil
	if res, err := s.Sync(ctx, ref, items(5)); err != nil || res != NotFound {
		t.Fatalf("deleted template: %s %v", res, err)
	}
	cm := workv1alpha2.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "c"}
	if res, err := s.Sync(ctx, cm, nil); err != nil || res != NoHook {
		t.Fatalf("kind without AggregateStatus: %s %v", res, err)
	}
}

// floatAggregator answers like a Lua layer: numbers as float64.
type floatAggregator struct{}

func (floatAggregator) HookEnabled(schema.GroupVersionKind, configv1alpha1.InterpreterOperation) bool {
	return true
}
func (floatAggregator) AggregateStatus(_ context.Context, obj *unstructured.Unstructured, _ []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	obj.Object["status"] = map[string]interface{}{"readyReplicas": float64(3)}
	return obj, nil
}

func TestSyncComparesAsJSON(t *testing.T) {
	tmpl := template()
	tmpl.Object["status"] = map[string]interface{}{"readyReplicas": int64(3)}
	store := &fakeTemplates{obj: tmpl}
	s := &Syncer{Reader: store, Writer: store, Aggregator: floatAggregator{}}
	if res, err := s.Sync(context.Background(), ref, nil); err != nil || res != Unchanged || store.writes != 0 {
		t.Fatalf("3 and 3.0: %s %v writes %d", res, err, store.writes)
	}
}

// TestSyncAggregatorWritingItsInput: a layer may set the status in the
// object it is given (floatAggregator does); the change must still be seen
// and written, as the template is no longer deep-copied before the call.
func TestSyncAggregatorWritingItsInput(t *testing.T) {
	tmpl := template()
	tmpl.Object["status"] = map[string]interface{}{"readyReplicas": int64(2)}
	store := &fakeTemplates{obj: tmpl}
	s := &Syncer{Reader: store, Writer: store, Aggregator: floatAggregator{}}
	if res, err := s.Sync(context.Background(), ref, nil); err != nil || res != Updated || store.writes != 1 {
		t.Fatalf("2 -> 3 in place: %s %v writes %d", res, err, store.writes)
	}
	if got := store.obj.Object["status"].(map[string]interface{})["readyReplicas"]; got != float64(3) {
		t.Fatalf("written status readyReplicas %v", got)
	}
}

// staleReader always returns the copy it was given: an informer cache that
// has not seen the latest write.
type staleReader struct {
	obj   *unstructured.Unstructured
	reads int
}

func (r *staleReader) Get(context.Context, schema.GroupVersionKind, string, string) (*unstructured.Unstructured, error) {
	r.reads++
	return r.obj.DeepCopy(), nil
}

func TestSyncReadsCacheFirstAndLiveAfterConflict(t *testing.T) {
	ctx := context.Background()
	live := &fakeTemplates{obj: template()}
	stale := template()
	stale.SetResourceVersion("0") // behind the server
	cached := &staleReader{obj: stale}
	s := &Syncer{Reader: cached, LiveReader: live, Writer: live, Aggregator: resourceinterpreter.New(native.New())}

	res, err := s.Sync(ctx, ref, items(2, 1))
	if err != nil || res != Updated || live.writes != 1 {
		t.Fatalf("sync over a stale cache: %s %v writes %d", res, err, live.writes)
	}
	if cached.reads != 1 {
		t.Fatalf("cache read %d times, want once (then the live reader)", cached.reads)
	}

	// An up-to-date cache answers alone: no live read is needed to see
	// that nothing changed.
	cached.obj, cached.reads = live.obj.DeepCopy(), 0
	s.LiveReader = nil
	if res, err := s.Sync(ctx, ref, items(2, 1)); err != nil || res != Unchanged || cached.reads != 1 {
		t.Fatalf("sync over a fresh cache: %s %v reads %d", res, err, cached.reads)
	}
}

// failingAggregator answers with an error of 20 MiB, as a script's
// error(<huge string>) or a webhook's status.message can.
type failingAggregator struct{ err error }

func (failingAggregator) HookEnabled(schema.GroupVersionKind, configv1alpha1.InterpreterOperation) bool {
	return true
}
func (f failingAggregator) AggregateStatus(context.Context, *unstructured.Unstructured, []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error) {
	return nil, f.err
}

func TestSyncErrorIsBounded(t *testing.T) {
	huge := errors.New(strings.Repeat("x", 20<<20))
	store := &fakeTemplates{obj: template()}
	s := &Syncer{Reader: store, Writer: store, Aggregator: failingAggregator{huge}}
	_, err := s.Sync(context.Background(), ref, items(1))
	if !errors.Is(err, huge) {
		t.Fatalf("sync: %.200v, want the interpreter's error", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "aggregate status of Deployment default/nginx: xxx") || !boundedtext.IsTruncated(msg) ||
		len(msg) > boundedtext.DefaultLimit+len("aggregate status of Deployment default/nginx: ") {
		t.Errorf("error of %d bytes (%.80q...): want the prefix and at most %d bytes of the interpreter's text", len(msg), msg, boundedtext.DefaultLimit)
	}
}
