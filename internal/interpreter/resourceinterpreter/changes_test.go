package resourceinterpreter

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	luavm "github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/lua/vm"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// namedLayer is a fakeLayer that names its hook, as the Lua layers do.
type namedLayer struct {
	*fakeLayer
	hook string
}

func (n namedLayer) HookName(schema.GroupVersionKind, configv1alpha1.InterpreterOperation) string {
	return n.hook
}

func drain(ch chan string) []string {
	var out []string
	for {
		select {
		case e := <-ch:
			out = append(out, e)
		default:
			return out
		}
	}
}

func TestLayerChangeRecordsOneEventAndCounts(t *testing.T) {
	lua := &fakeLayer{name: "customization", replicas: 2}
	native := &fakeLayer{name: "native", hooks: replicaHook, replicas: 3}
	i := New(namedLayer{lua, "my-ric"}, native)
	rec := record.NewFakeRecorder(10)
	i.RecordEvents(rec, time.Hour)
	ctx := context.Background()
	counter := layerChanges.WithLabelValues("InterpretReplica", "workload.example.io/v1alpha1/Workload", "customization")
	before := testutil.ToFloat64(counter)

	for range 3 {
		if _, _, err := i.GetReplicas(ctx, workload()); err != nil {
			t.Fatal(err)
		}
	}
	if ev := drain(rec.Events); len(ev) != 0 {
		t.Fatalf("events before any change: %v", ev)
	}
	lua.hooks = replicaHook // a customization appears and shadows native
	for range 3 {
		if _, _, err := i.GetReplicas(ctx, workload()); err != nil {
			t.Fatal(err)
		}
	}
	ev := drain(rec.Events)
	if len(ev) != 1 || !strings.Contains(ev[0], ReasonInterpreterLayerChanged) || !strings.Contains(ev[0], "customization my-ric (was native)") {
		t.Fatalf("events = %v, want one %s naming customization my-ric and native", ev, ReasonInterpreterLayerChanged)
	}
	if got := testutil.ToFloat64(counter) - before; got != 1 {
		t.Fatalf("layer changes counted %v, want 1", got)
	}
}

func TestFailingCustomizationRecordsOneEventWithCount(t *testing.T) {
	scriptErr := &luavm.ScriptError{Customization: "health-ric", Operation: configv1alpha1.InterpreterOperationInterpretReplica, Err: fmt.Errorf("line 2: attempt to index a nil value")}
	lua := &fakeLayer{name: "customization", hooks: replicaHook, err: scriptErr}
	native := &fakeLayer{name: "native", hooks: replicaHook}
	i := New(namedLayer{lua, "health-ric"}, native)
	rec := record.NewFakeRecorder(10)
	i.RecordEvents(rec, time.Hour)
	var windows []func() // episode windows started, ended by the test
	i.failures.after = func(_ time.Duration, f func()) { windows = append(windows, f) }
	ctx := context.Background()
	for n := range 7 {
		obj := workload()
		obj.SetName(fmt.Sprintf("w%d", n%4)) // 4 distinct objects
		if _, _, err := i.GetReplicas(ctx, obj); err == nil {
			t.Fatal("want the script's error")
		}
	}
	if ev := drain(rec.Events); len(ev) != 0 {
		t.Fatalf("event before the episode's window ended: %v", ev)
	}
	if len(windows) != 1 {
		t.Fatalf("%d episode windows started, want 1", len(windows))
	}
	windows[0]()
	ev := drain(rec.Events)
	if len(ev) != 1 || !strings.Contains(ev[0], ReasonCustomizationFailing) || !strings.Contains(ev[0], "fails for 4 objects") || !strings.Contains(ev[0], "line 2") {
		t.Fatalf("events = %v, want one %s for 4 objects with the error", ev, ReasonCustomizationFailing)
	}
	// More failures of the same episode start no window and record nothing.
	_, _, _ = i.GetReplicas(ctx, workload())
	if len(windows) != 1 {
		t.Fatalf("a failure of a reported episode started window %d", len(windows))
	}
	if ev := drain(rec.Events); len(ev) != 0 {
		t.Fatalf("second event in one episode: %v", ev)
	}
}

// BenchmarkNoteAnswer is the cost noteAnswer adds to a call that makes a
// route (every call when some layer is not layer.Versioned) when the
// answering layer did not change: one HookName lookup and one map read
// under a read lock.
func BenchmarkNoteAnswer(b *testing.B) {
	var l layer.Layer = namedLayer{&fakeLayer{name: "customization", hooks: replicaHook}, "my-ric"}
	i := New(l, &fakeLayer{name: "native", hooks: replicaHook})
	obj := workload()
	gvk := obj.GroupVersionKind()
	b.ReportAllocs()
	for b.Loop() {
		i.noteAnswer(answerOf(l, gvk, configv1alpha1.InterpreterOperationInterpretReplica), obj, gvk, configv1alpha1.InterpreterOperationInterpretReplica)
	}
}
