package main

import (
	"context"
	"encoding/base64"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook/webhooktest"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// startServer runs the real server on a loopback port with a certificate
// from a fresh CA and returns its address and the CA bundle.
func startServer(t *testing.T) (string, []byte) {
	ca, err := webhooktest.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.ServingPair("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	o := options{bindAddress: "127.0.0.1", certFile: filepath.Join(dir, "tls.crt"), keyFile: filepath.Join(dir, "tls.key")}
	if err := os.WriteFile(o.certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(o.keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addrs, errs := make(chan net.Addr, 1), make(chan error, 1)
	go func() { errs <- run(ctx, o, func(a net.Addr) { addrs <- a }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errs; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	select {
	case a := <-addrs:
		return a.String(), ca.PEM
	case err := <-errs:
		t.Fatalf("server did not start: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("server did not start")
	}
	return "", nil
}

// TestEndToEnd calls the example server through Propel's webhook layer,
// configured as in Karmada's sample webhook-configuration.yaml.
func TestEndToEnd(t *testing.T) {
	addr, caBundle := startServer(t)
	i := webhook.New(webhook.Options{})
	cfg := configv1alpha1.ResourceInterpreterWebhookConfiguration{Webhooks: []configv1alpha1.ResourceInterpreterWebhook{{
		Name: "workloads.example.com",
		Rules: []configv1alpha1.RuleWithOperations{{
			Operations: []configv1alpha1.InterpreterOperation{"InterpretReplica", "ReviseReplica", "Retain", "AggregateStatus",
				"InterpretHealth", "InterpretStatus", "InterpretDependency"},
			APIGroups: []string{"workload.example.io"}, APIVersions: []string{"v1alpha1"}, Kinds: []string{"Workload"},
		}},
		ClientConfig:               admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://" + addr + webhookPath), CABundle: caBundle},
		InterpreterContextVersions: []string{"v1alpha1"},
		TimeoutSeconds:             ptr.To[int32](3),
	}}}
	cfg.Name = "examples"
	i.LoadConfig([]configv1alpha1.ResourceInterpreterWebhookConfiguration{cfg})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON([]byte(sampleWorkload)); err != nil {
		t.Fatal(err)
	}

	replicas, req, err := i.GetReplicas(ctx, obj)
	if err != nil || replicas != 3 || req == nil || req.ResourceRequest.Cpu().MilliValue() != 250 {
		t.Fatalf("GetReplicas = %d, %+v, %v", replicas, req, err)
	}
	revised, err := i.ReviseReplica(ctx, obj, 6)
	if n, _, _ := unstructured.NestedInt64(revised.Object, "spec", "replicas"); err != nil || n != 6 {
		t.Fatalf("ReviseReplica = %v, %v", revised, err)
	}
	observed := obj.DeepCopy()
	_ = unstructured.SetNestedField(observed.Object, true, "spec", "paused")
	retained, err := i.Retain(ctx, obj, observed)
	if paused, _, _ := unstructured.NestedBool(retained.Object, "spec", "paused"); err != nil || !paused {
		t.Fatalf("Retain = %v, %v", retained, err)
	}
	items := []workv1alpha2.AggregatedStatusItem{
		{ClusterName: "member1", Status: &runtime.RawExtension{Raw: []byte(`{"readyReplicas":1}`)}},
		{ClusterName: "member2", Status: &runtime.RawExtension{Raw: []byte(`{"readyReplicas":2}`)}},
	}
	aggregated, err := i.AggregateStatus(ctx, obj, items)
	if n, _, _ := unstructured.NestedInt64(aggregated.Object, "status", "readyReplicas"); err != nil || n != 3 {
		t.Fatalf("AggregateStatus = %v, %v", aggregated, err)
	}
	if healthy, err := i.InterpretHealth(ctx, obj); err != nil || healthy {
		t.Fatalf("InterpretHealth (2 of 3 ready) = %v, %v", healthy, err)
	}
	if healthy, err := i.InterpretHealth(ctx, aggregated); err != nil || !healthy {
		t.Fatalf("InterpretHealth (3 of 3 ready) = %v, %v", healthy, err)
	}
	if st, err := i.ReflectStatus(ctx, obj); err != nil || string(st.Raw) != `{"readyReplicas":2}` {
		t.Fatalf("ReflectStatus = %v, %v", st, err)
	}
	deps, err := i.GetDependencies(ctx, obj)
	if err != nil || len(deps) != 2 || deps[0].Name != "nginx-conf" || deps[1].Name != "db-secret" {
		t.Fatalf("GetDependencies = %+v, %v", deps, err)
	}
	// InterpretComponent is not registered for the webhook.
	if _, err := i.GetComponents(ctx, obj); err == nil {
		t.Fatal("GetComponents succeeded without a rule")
	}
}

// TestKarmadaSampleConfiguration loads Karmada's sample
// webhook-configuration.yaml, pointed at the running server, and checks that
// every operation it registers reaches the server.
func TestKarmadaSampleConfiguration(t *testing.T) {
	shared := harness.SharedDir()
	if shared == "" {
		t.Skip("Karmada reference material (../shared) is absent")
	}
	raw, err := os.ReadFile(filepath.Join(shared, "reference", "karmada-samples", "workload", "webhook-configuration.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	addr, caBundle := startServer(t)
	doc := strings.NewReplacer(
		"{{karmada-interpreter-webhook-example-svc-address}}:443", addr,
		"{{caBundle}}", base64.StdEncoding.EncodeToString(caBundle),
	).Replace(string(raw))
	cfg := configv1alpha1.ResourceInterpreterWebhookConfiguration{}
	if err := yaml.UnmarshalStrict([]byte(strings.TrimPrefix(doc, "---\n")), &cfg); err != nil {
		t.Fatal(err)
	}
	i := webhook.New(webhook.Options{})
	i.LoadConfig([]configv1alpha1.ResourceInterpreterWebhookConfiguration{cfg})
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON([]byte(sampleWorkload)); err != nil {
		t.Fatal(err)
	}
	for _, op := range cfg.Webhooks[0].Rules[0].Operations {
		ok, err := i.HookEnabled(obj.GroupVersionKind(), op)
		if !ok || err != nil {
			t.Errorf("HookEnabled(%s) = %v, %v", op, ok, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if n, _, err := i.GetReplicas(ctx, obj); err != nil || n != 3 {
		t.Fatalf("GetReplicas = %d, %v", n, err)
	}
}
