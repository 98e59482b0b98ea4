package webhook

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook/webhooktest"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	"github.com/propel-mc/propel/pkg/webhook/interpreter"
)

var workloadGVK = metav1.GroupVersionKind{Group: "workload.example.io", Version: "v1alpha1", Kind: "Workload"}

func workload() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "workload.example.io/v1alpha1",
		"kind":       "Workload",
		"metadata":   map[string]any{"name": "nginx", "namespace": "default"},
		"spec":       map[string]any{"replicas": int64(3), "paused": false},
	}}
}

// allOps is a rule for every operation on Workloads.
func allOps() configv1alpha1.RuleWithOperations {
	return configv1alpha1.RuleWithOperations{
		Operations:  []configv1alpha1.InterpreterOperation{"*"},
		APIGroups:   []string{"workload.example.io"},
		APIVersions: []string{"v1alpha1"},
		Kinds:       []string{"Workload"},
	}
}

func urlHook(name, url string, ca []byte, rules ...configv1alpha1.RuleWithOperations) configv1alpha1.ResourceInterpreterWebhook {
	return configv1alpha1.ResourceInterpreterWebhook{
		Name:                       name,
		ClientConfig:               admissionregistrationv1.WebhookClientConfig{URL: ptr.To(url), CABundle: ca},
		Rules:                      rules,
		InterpreterContextVersions: []string{"v1alpha1"},
	}
}

func config(name string, hooks ...configv1alpha1.ResourceInterpreterWebhook) configv1alpha1.ResourceInterpreterWebhookConfiguration {
	c := configv1alpha1.ResourceInterpreterWebhookConfiguration{Webhooks: hooks}
	c.Name = name
	return c
}

// recorder keeps the last request a test server received.
type recorder struct {
	mu      sync.Mutex
	body    []byte
	header  http.Header
	query   string
	proto   int
	request configv1alpha1.ResourceInterpreterRequest
}

func (r *recorder) record(req *http.Request, body []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.body, r.header, r.query, r.proto = body, req.Header.Clone(), req.URL.RawQuery, req.ProtoMajor
	var rc configv1alpha1.ResourceInterpreterContext
	if err := json.Unmarshal(body, &rc); err == nil && rc.Request != nil {
		r.request = *rc.Request
	}
}

func (r *recorder) last() (configv1alpha1.ResourceInterpreterRequest, []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.request, r.body
}

// sdkServer serves handle through the SDK and records every request.
func sdkServer(t testing.TB, handle func(interpreter.Request) interpreter.Response) (*webhooktest.Server, *recorder) {
	rec := &recorder{}
	wh := interpreter.NewWebhook(interpreter.HandlerFunc(func(_ context.Context, req interpreter.Request) interpreter.Response {
		return handle(req)
	}), nil)
	srv := webhooktest.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.record(r, body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		wh.ServeHTTP(w, r)
	}))
	return srv, rec
}

// rawServer answers every request with answer(uid of the request).
func rawServer(t testing.TB, status int, answer func(uid string) string) *webhooktest.Server {
	return webhooktest.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rc configv1alpha1.ResourceInterpreterContext
		if err := json.NewDecoder(r.Body).Decode(&rc); err != nil || rc.Request == nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, answer(string(rc.Request.UID)))
	}))
}

// newLoaded returns an Interpreter with one configuration "cfg" holding
// hook "hook.example.io" at srv for every operation on Workloads.
func newLoaded(t testing.TB, srv *webhooktest.Server, mutate ...func(*configv1alpha1.ResourceInterpreterWebhook)) *Interpreter {
	t.Helper()
	h := urlHook("hook.example.io", srv.URL+"/interpret", srv.CA.PEM, allOps())
	for _, m := range mutate {
		m(&h)
	}
	i := New(Options{})
	i.LoadConfig([]configv1alpha1.ResourceInterpreterWebhookConfiguration{config("cfg", h)})
	return i
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

const hookUID = `failed calling webhook "cfg/hook.example.io": `

func x509PoolOf(t testing.TB, pemCerts []byte) *x509.CertPool {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemCerts) {
		t.Fatal("no PEM certificate")
	}
	return pool
}
