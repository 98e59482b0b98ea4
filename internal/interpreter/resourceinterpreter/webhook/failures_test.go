package webhook

import (
	"context"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook/webhooktest"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// call runs op against i and returns its error.
func call(ctx context.Context, i *Interpreter, op configv1alpha1.InterpreterOperation) error {
	var err error
	switch op {
	case configv1alpha1.InterpreterOperationInterpretReplica:
		_, _, err = i.GetReplicas(ctx, workload())
	case configv1alpha1.InterpreterOperationInterpretComponent:
		_, err = i.GetComponents(ctx, workload())
	case configv1alpha1.InterpreterOperationReviseReplica:
		_, err = i.ReviseReplica(ctx, workload(), 2)
	case configv1alpha1.InterpreterOperationRetain:
		_, err = i.Retain(ctx, workload(), workload())
	case configv1alpha1.InterpreterOperationAggregateStatus:
		_, err = i.AggregateStatus(ctx, workload(), nil)
	case configv1alpha1.InterpreterOperationInterpretStatus:
		_, err = i.ReflectStatus(ctx, workload())
	case configv1alpha1.InterpreterOperationInterpretHealth:
		_, err = i.InterpretHealth(ctx, workload())
	case configv1alpha1.InterpreterOperationInterpretDependency:
		_, err = i.GetDependencies(ctx, workload())
	}
	return err
}

func TestBadAnswers(t *testing.T) {
	const (
		replica = configv1alpha1.InterpreterOperationInterpretReplica
		revise  = configv1alpha1.InterpreterOperationReviseReplica
		retain  = configv1alpha1.InterpreterOperationRetain
		agg     = configv1alpha1.InterpreterOperationAggregateStatus
		status  = configv1alpha1.InterpreterOperationInterpretStatus
		health  = configv1alpha1.InterpreterOperationInterpretHealth
		deps    = configv1alpha1.InterpreterOperationInterpretDependency
	)
	ok := func(rest string) func(string) string {
		return func(uid string) string { return `{"response":{"uid":"` + uid + `","successful":true` + rest + `}}` }
	}
	cases := []struct {
		name   string
		op     configv1alpha1.InterpreterOperation
		status int
		answer func(uid string) string
		want   string
	}{
		{"non-2xx", replica, 500, func(string) string { return "boom" }, "the server responded with HTTP status 500: boom"},
		{"redirect", replica, 302, func(string) string { return "" }, "HTTP status 302"},
		{"invalid JSON", replica, 200, func(string) string { return "not json" }, "decode response: invalid character"},
		{"wrong envelope kind", replica, 200, func(uid string) string {
			return `{"kind":"AdmissionReview","response":{"uid":"` + uid + `","successful":true,"replicas":1}}`
		}, `unexpected kind "AdmissionReview"`},
		{"wrong envelope apiVersion", replica, 200, func(uid string) string {
			return `{"apiVersion":"v1","response":{"uid":"` + uid + `","successful":true,"replicas":1}}`
		}, `unexpected apiVersion "v1"`},
		{"missing response", replica, 200, func(string) string { return `{}` }, "webhook response was absent"},
		{"wrong uid", replica, 200, func(uid string) string {
			return `{"response":{"uid":"other","successful":true,"replicas":1}}`
		}, `expected response.uid "`},
		{"uid is case-sensitive", replica, 200, func(uid string) string {
			return `{"response":{"UID":"` + uid + `","successful":true,"replicas":1}}`
		}, `got ""`},
		{"unsuccessful with status", replica, 200, func(uid string) string {
			return `{"response":{"uid":"` + uid + `","successful":false,"status":{"code":418,"message":"teapot"}}}`
		}, "webhook call failed, get status code: 418, msg: teapot"},
		{"unsuccessful without status", replica, 200, func(uid string) string {
			return `{"response":{"uid":"` + uid + `","successful":false}}`
		}, "webhook require response.status when response.successful is false"},
		{"missing replicas", replica, 200, ok(""), "webhook returned nil response.replicas"},
		{"missing healthy", health, 200, ok(""), "webhook returned nil response.healthy"},
		{"missing rawStatus", status, 200, ok(""), "webhook returned nill response.rawStatus"},
		{"null rawStatus", status, 200, ok(`,"rawStatus":null`), "webhook returned nill response.rawStatus"},
		{"patch without patchType", revise, 200, ok(`,"patch":"` + b64(`[]`) + `"`), "webhook returned nil response.patchType"},
		{"patchType without patch", retain, 200, ok(`,"patchType":"JSONPatch"`), "webhook returned empty response.patch"},
		{"unknown patchType", agg, 200, ok(`,"patchType":"MergePatch","patch":"` + b64(`{}`) + `"`), `webhook returned invalid response.patchType of "MergePatch"`},
		{"patch not a JSON patch", revise, 200, ok(`,"patchType":"JSONPatch","patch":"` + b64(`{"op":"x"}`) + `"`), "decode patch:"},
		{"patch does not apply", retain, 200, ok(`,"patchType":"JSONPatch","patch":"` + b64(`[{"op":"remove","path":"/spec/missing"}]`) + `"`), "apply patch:"},
		{"patch removes kind", agg, 200, ok(`,"patchType":"JSONPatch","patch":"` + b64(`[{"op":"remove","path":"/kind"}]`) + `"`), "decode patched object:"},
		{"dependency without kind", deps, 200, ok(`,"dependencies":[{"apiVersion":"v1","name":"a"}]`), "dependencies[0].kind: Required value"},
		{"dependency without name or selector", deps, 200, ok(`,"dependencies":[{"apiVersion":"v1","kind":"Secret","name":"a"},{"apiVersion":"v1","kind":"Secret"}]`), "invalid dependencies: dependencies[1].name: Required value"},
		{"dependency with bad selector", deps, 200, ok(`,"dependencies":[{"apiVersion":"v1","kind":"Secret","labelSelector":{"matchExpressions":[{"key":"a","operator":"In"}]}}]`), "dependencies[0].labelSelector.matchExpressions[0].values"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := rawServer(t, tc.status, tc.answer)
			err := call(testContext(t), newLoaded(t, srv), tc.op)
			wantCallError(t, err, tc.want)
		})
	}
}

func wantCallError(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %q", want)
	}
	t.Log(err)
	var ce *CallError
	if !errors.As(err, &ce) || ce.Webhook != "cfg/hook.example.io" {
		t.Fatalf("error %q is not a CallError naming cfg/hook.example.io", err)
	}
	if !strings.HasPrefix(err.Error(), hookUID) || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q, want prefix %q containing %q", err, hookUID, want)
	}
}

func TestClientFailures(t *testing.T) {
	good, _ := sdkServer(t, answerAll)
	other, err := webhooktest.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		mutate func(*configv1alpha1.ResourceInterpreterWebhook)
		want   string
	}{
		{"connection refused", func(h *configv1alpha1.ResourceInterpreterWebhook) {
			h.ClientConfig.URL = ptr.To("https://" + closedAddr(t))
		}, "connection refused"},
		{"untrusted certificate", func(h *configv1alpha1.ResourceInterpreterWebhook) { h.ClientConfig.CABundle = other.PEM }, "certificate signed by unknown authority"},
		{"caBundle not PEM", func(h *configv1alpha1.ResourceInterpreterWebhook) { h.ClientConfig.CABundle = []byte("junk") }, "clientConfig.caBundle holds no PEM certificate"},
		{"plain http", func(h *configv1alpha1.ResourceInterpreterWebhook) { h.ClientConfig.URL = ptr.To("http://127.0.0.1:1/") }, `clientConfig.url scheme must be https, got "http"`},
		{"no url nor service", func(h *configv1alpha1.ResourceInterpreterWebhook) { h.ClientConfig.URL = nil }, "clientConfig has neither url nor service"},
		{"unknown context version", func(h *configv1alpha1.ResourceInterpreterWebhook) { h.InterpreterContextVersions = []string{"v1beta1"} }, "webhook does not accept known ResourceInterpreterContext versions (v1alpha1)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := call(testContext(t), newLoaded(t, good, tc.mutate), configv1alpha1.InterpreterOperationInterpretReplica)
			wantCallError(t, err, tc.want)
		})
	}
}

func closedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestTimeout: a webhook slower than timeoutSeconds fails at the deadline.
func TestTimeout(t *testing.T) {
	srv := webhooktest.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(10 * time.Second):
		case <-r.Context().Done():
		}
	}))
	i := newLoaded(t, srv, func(h *configv1alpha1.ResourceInterpreterWebhook) { h.TimeoutSeconds = ptr.To[int32](1) })
	start := time.Now()
	err := call(testContext(t), i, configv1alpha1.InterpreterOperationInterpretHealth)
	elapsed := time.Since(start)
	wantCallError(t, err, "context deadline exceeded")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v does not wrap context.DeadlineExceeded", err)
	}
	if elapsed < 900*time.Millisecond || elapsed > 3*time.Second {
		t.Fatalf("call took %v, want about 1s", elapsed)
	}
}

// TestDefaultTimeout: without timeoutSeconds Propel applies its default.
func TestDefaultTimeout(t *testing.T) {
	srv := webhooktest.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	i := New(Options{DefaultTimeout: 300 * time.Millisecond})
	i.LoadConfig([]configv1alpha1.ResourceInterpreterWebhookConfiguration{config("cfg", urlHook("hook.example.io", srv.URL, srv.CA.PEM, allOps()))})
	start := time.Now()
	err := call(testContext(t), i, configv1alpha1.InterpreterOperationInterpretReplica)
	wantCallError(t, err, "context deadline exceeded")
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Fatalf("call took %v, want about 300ms", elapsed)
	}
	if New(Options{}).defaultTimeout != 10*time.Second || New(Options{DefaultTimeout: -1}).defaultTimeout != 10*time.Second {
		t.Fatal("default timeout is not 10s, or can be disabled")
	}
}

func TestNotReadyAndNoHook(t *testing.T) {
	i := New(Options{})
	gvk := schema.GroupVersionKind{Group: "workload.example.io", Version: "v1alpha1", Kind: "Workload"}
	if _, err := i.HookEnabled(gvk, configv1alpha1.InterpreterOperationRetain); !errors.Is(err, layer.ErrNotReady) {
		t.Fatalf("HookEnabled before load: %v, want ErrNotReady", err)
	}
	if err := call(testContext(t), i, configv1alpha1.InterpreterOperationRetain); !errors.Is(err, layer.ErrNotReady) {
		t.Fatalf("Retain before load: %v, want ErrNotReady", err)
	}
	i.LoadConfig(nil)
	if ok, err := i.HookEnabled(gvk, configv1alpha1.InterpreterOperationRetain); ok || err != nil {
		t.Fatalf("HookEnabled with no configuration = %v, %v", ok, err)
	}
	if err := call(testContext(t), i, configv1alpha1.InterpreterOperationRetain); !errors.Is(err, ErrNoHook) {
		t.Fatalf("Retain without hook: %v, want ErrNoHook", err)
	}
}
