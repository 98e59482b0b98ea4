package replay

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

var deploymentGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

// countingInterpreter answers InterpretReplica with replicas, and logs each
// call to events so that a test can see the order of interpreting and
// writing.
type countingInterpreter struct {
	layer.Operations // nil: only GetReplicas is called
	replicas         int32
	events           *[]string
}

func (c countingInterpreter) GetReplicas(_ context.Context, obj *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error) {
	*c.events = append(*c.events, "interpret "+obj.GetName())
	return c.replicas, nil, nil
}

func (c countingInterpreter) Answerer(schema.GroupVersionKind, configv1alpha1.InterpreterOperation) (resourceinterpreter.Answer, error) {
	return resourceinterpreter.Answer{Layer: "customization"}, nil
}

// loggingWriter logs each write to events.
type loggingWriter struct {
	buf    bytes.Buffer
	events *[]string
}

func (w *loggingWriter) Write(p []byte) (int, error) {
	*w.events = append(*w.events, "write "+strings.TrimSpace(string(p)))
	return w.buf.Write(p)
}

func (w *loggingWriter) String() string { return w.buf.String() }

func deployments(t *testing.T, n int) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	var objs []client.Object
	for i := 0; i < n; i++ {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(deploymentGVK)
		u.SetNamespace("default")
		u.SetName(fmt.Sprintf("web-%d", i))
		objs = append(objs, u)
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
}

// TestStreamWritesEachObjectBeforeTheNextIsReplayed: the text report of
// the first object is written before the last object is interpreted, and
// the summary comes once at the end, the same text as WriteText's.
func TestStreamWritesEachObjectBeforeTheNextIsReplayed(t *testing.T) {
	var events []string
	active := countingInterpreter{replicas: 1, events: &events}
	candidate := countingInterpreter{replicas: 2, events: &events}
	out := &loggingWriter{events: &events}
	stream := NewStream(out, nil, false)
	targets := []Target{{GVK: deploymentGVK, Operations: []configv1alpha1.InterpreterOperation{configv1alpha1.InterpreterOperationInterpretReplica}}}
	rep, err := Run(context.Background(), Sources{Client: deployments(t, 3)}, active, candidate, targets, Options{Namespace: "default", Observer: stream})
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Finish(rep); err != nil {
		t.Fatal(err)
	}
	firstWrite, lastInterpret := -1, -1
	for i, e := range events {
		if firstWrite < 0 && strings.HasPrefix(e, "write changed Deployment default/web-0") {
			firstWrite = i
		}
		if e == "interpret web-2" {
			lastInterpret = i
		}
	}
	if firstWrite < 0 || lastInterpret < 0 || firstWrite > lastInterpret {
		t.Fatalf("web-0's report was not written before web-2 was interpreted: %q", events)
	}
	var whole bytes.Buffer
	if err := WriteText(&whole, rep); err != nil {
		t.Fatal(err)
	}
	if out.String() != whole.String() {
		t.Errorf("streamed report:\n%s\nwant WriteText's:\n%s", out.String(), whole.String())
	}
	if !strings.HasSuffix(out.String(), "3 objects: 0 same, 3 changed, 0 error\n") {
		t.Errorf("summary missing at the end:\n%s", out.String())
	}
}

// TestStreamProgressOnlyOnATerminal: progress lines name each template
// with its position when progress is on (a terminal) and are cleared
// before report lines; with it off (a pipe) nothing reaches stderr.
func TestStreamProgressOnlyOnATerminal(t *testing.T) {
	targets := []Target{{GVK: deploymentGVK, Operations: []configv1alpha1.InterpreterOperation{configv1alpha1.InterpreterOperationInterpretReplica}}}
	for _, terminal := range []bool{true, false} {
		var events []string
		var report, stderr bytes.Buffer
		stream := NewStream(&report, &stderr, terminal)
		rep, err := Run(context.Background(), Sources{Client: deployments(t, 2)}, countingInterpreter{replicas: 1, events: &events}, countingInterpreter{replicas: 1, events: &events}, targets, Options{Observer: stream})
		if err != nil {
			t.Fatal(err)
		}
		if err := stream.Finish(rep); err != nil {
			t.Fatal(err)
		}
		if !terminal {
			if stderr.Len() != 0 {
				t.Errorf("piped stderr got %q", stderr.String())
			}
			continue
		}
		want := "\rreplaying 1/2 apps/v1 Deployment default/web-0\x1b[K\r\x1b[K" +
			"\rreplaying 2/2 apps/v1 Deployment default/web-1\x1b[K\r\x1b[K"
		if stderr.String() != want {
			t.Errorf("terminal progress %q, want %q", stderr.String(), want)
		}
		if strings.Contains(report.String(), "replaying") {
			t.Errorf("progress leaked into the report: %q", report.String())
		}
	}
}

// TestStreamWithoutReportWriterWritesNothingButProgress: JSON output
// passes no report writer; the stream then only shows progress.
func TestStreamWithoutReportWriterWritesNothingButProgress(t *testing.T) {
	var stderr bytes.Buffer
	s := NewStream(nil, &stderr, true)
	s.Object(ObjectReport{Kind: "Deployment", Name: "web", Outcome: Same})
	if err := s.Finish(&Report{}); err != nil {
		t.Fatal(err)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr got %q", stderr.String())
	}
}
