package hostile

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook/webhooktest"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

func workload() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "workload.example.io/v1alpha1",
		"kind":       "Workload",
		"metadata":   map[string]any{"name": "nginx", "namespace": "default"},
		"spec":       map[string]any{"replicas": int64(3)},
	}}
}

// hostileWebhook serves answer(uid) for every request over loopback TLS
// and returns the facade (webhook layer over the native fallback) calling it.
func hostileWebhook(t *testing.T, answer func(uid string) string, mutate ...func(*configv1alpha1.ResourceInterpreterWebhook)) *resourceinterpreter.Interpreter {
	t.Helper()
	srv := webhooktest.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rc configv1alpha1.ResourceInterpreterContext
		if err := json.NewDecoder(r.Body).Decode(&rc); err != nil || rc.Request == nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer(string(rc.Request.UID)))
	}))
	h := configv1alpha1.ResourceInterpreterWebhook{
		Name:                       "hostile.example.io",
		ClientConfig:               admissionregistrationv1.WebhookClientConfig{URL: ptr.To(srv.URL), CABundle: srv.CA.PEM},
		Rules:                      []configv1alpha1.RuleWithOperations{{Operations: []configv1alpha1.InterpreterOperation{"*"}, APIGroups: []string{"workload.example.io"}, APIVersions: []string{"v1alpha1"}, Kinds: []string{"Workload"}}},
		InterpreterContextVersions: []string{"v1alpha1"},
	}
	for _, m := range mutate {
		m(&h)
	}
	wh := webhook.New(webhook.Options{})
	cfg := configv1alpha1.ResourceInterpreterWebhookConfiguration{Webhooks: []configv1alpha1.ResourceInterpreterWebhook{h}}
	cfg.Name = "hostile"
	wh.LoadConfig([]configv1alpha1.ResourceInterpreterWebhookConfiguration{cfg})
	return resourceinterpreter.New(wh, native.New())
}

func ok(rest string) func(string) string {
	return func(uid string) string { return `{"response":{"uid":"` + uid + `","successful":true` + rest + `}}` }
}

func patchAnswer(patch string) func(string) string {
	return ok(`,"patchType":"JSONPatch","patch":"` + base64.StdEncoding.EncodeToString([]byte(patch)) + `"`)
}

// heapAfter runs f and returns the heap in use after it, after a GC.
func heapGrowth(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	if after.TotalAlloc < before.TotalAlloc {
		return 0
	}
	return after.TotalAlloc - before.TotalAlloc
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", parts)
	}
	if len(err.Error()) > 2*boundedtext.DefaultLimit {
		t.Fatalf("error of %d bytes", len(err.Error()))
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not contain %q", err, p)
		}
	}
	t.Log(err)
}

// TestWebhookCopyAmplification: 86 doubling copies (4.5 KB
// of patch) used to expand to a 125 MiB object and 1.5 GB of RSS.
func TestWebhookCopyAmplification(t *testing.T) {
	ops := []string{`{"op":"add","path":"/b","value":{"x":"` + strings.Repeat("y", 50) + `"}}`}
	for i := range 86 {
		ops = append(ops, fmt.Sprintf(`{"op":"copy","from":"/b","path":"/b/c%d"}`, i))
	}
	ri := hostileWebhook(t, patchAnswer("["+strings.Join(ops, ",")+"]"))
	var err error
	start := time.Now()
	alloc := heapGrowth(func() { _, err = ri.ReviseReplica(context.Background(), workload(), 2) })
	wantErr(t, err, `failed calling webhook "hostile/hostile.example.io"`, "copy operations add more than 2097152 bytes")
	if !errors.Is(err, webhook.ErrPatchLimit) {
		t.Fatal("error does not wrap webhook.ErrPatchLimit")
	}
	t.Logf("took %v, allocated %d MiB", time.Since(start), alloc>>20)
	if alloc > 256<<20 {
		t.Fatalf("allocated %d MiB", alloc>>20)
	}
	// The process survives and answers the next call.
	if _, _, err := ri.GetReplicas(context.Background(), workload()); err == nil {
		t.Log("next call answered")
	}
}

// TestWebhookHugeStatusMessage: a 20 MiB status.message.
func TestWebhookHugeStatusMessage(t *testing.T) {
	msg := strings.Repeat("m", 20<<20)
	ri := hostileWebhook(t, func(uid string) string {
		return `{"response":{"uid":"` + uid + `","successful":false,"status":{"code":500,"message":"` + msg + `"}}}`
	})
	_, err := ri.InterpretHealth(context.Background(), workload())
	wantErr(t, err, "webhook call failed, get status code: 500", "[truncated ")
}

// TestWebhookInvalidReplicas: invalid replica counts through the webhook layer.
func TestWebhookInvalidReplicas(t *testing.T) {
	for _, v := range []string{"-1", "1.5", "2147483648", "1e400"} {
		t.Run(v, func(t *testing.T) {
			ri := hostileWebhook(t, ok(`,"replicas":`+v))
			_, _, err := ri.GetReplicas(context.Background(), workload())
			wantErr(t, err, "response.replicas "+v, "replicas must be an integer between 0 and 2147483647")
			if !errors.Is(err, layer.ErrInvalidReplicas) {
				t.Fatal("error does not wrap layer.ErrInvalidReplicas")
			}
		})
	}
}

// TestWebhookHugeTimeoutClamped: timeoutSeconds 2^31-1
// against a webhook that never answers: the call ends at 30 s at most. The
// probe uses a caller deadline of 45 s so that a regression fails rather
// than hangs.
func TestWebhookHugeTimeoutClamped(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 30 s")
	}
	srv := webhooktest.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	_ = srv
	ri := hostileWebhook(t, ok(""), func(h *configv1alpha1.ResourceInterpreterWebhook) {
		h.ClientConfig.URL, h.ClientConfig.CABundle = ptr.To(srv.URL), srv.CA.PEM
		h.TimeoutSeconds = ptr.To[int32](1<<31 - 1)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	start := time.Now()
	_, err := ri.InterpretHealth(ctx, workload())
	wantErr(t, err, "timeout=30s")
	if ctx.Err() != nil {
		t.Fatalf("the call ran into the probe's 45 s deadline after %v", time.Since(start))
	}
}

// TestWebhookChangesIdentity: a Retain answer renaming the
// object into kube-system.
func TestWebhookChangesIdentity(t *testing.T) {
	ri := hostileWebhook(t, patchAnswer(`[{"op":"replace","path":"/metadata/namespace","value":"kube-system"}]`))
	_, err := ri.Retain(context.Background(), workload(), workload())
	wantErr(t, err, `metadata.namespace is "kube-system", want "default"`)
	if !errors.Is(err, resourceinterpreter.ErrChangedIdentity) {
		t.Fatal("error does not wrap ErrChangedIdentity")
	}
}

// TestWebhookDependencyInOtherNamespace: a Secret of
// kube-system named as a dependency.
func TestWebhookDependencyInOtherNamespace(t *testing.T) {
	ri := hostileWebhook(t, ok(`,"dependencies":[{"apiVersion":"v1","kind":"Secret","namespace":"kube-system","name":"admin-token"}]`))
	_, err := ri.GetDependencies(context.Background(), workload())
	wantErr(t, err, `dependencies[0] (Secret admin-token) is in namespace "kube-system", not "default"`)
}

// TestWebhookCABundleReplacesSystemRoots: the webhook's
// certificate is signed by a CA among the system roots (systemCA, installed
// by TestMain through SSL_CERT_FILE) but not by its caBundle: it used to be
// trusted, because the caBundle was added to the system roots.
func TestWebhookCABundleReplacesSystemRoots(t *testing.T) {
	srv := webhooktest.NewServerWithCA(t, systemCA, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "must not be reached", http.StatusTeapot)
	}))
	other, err := webhooktest.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	ri := hostileWebhook(t, ok(""), func(h *configv1alpha1.ResourceInterpreterWebhook) {
		h.ClientConfig.URL, h.ClientConfig.CABundle = ptr.To(srv.URL), other.PEM
	})
	_, err = ri.InterpretHealth(context.Background(), workload())
	wantErr(t, err, "certificate signed by unknown authority")
}
