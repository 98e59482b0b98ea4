package webhook

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/localenv"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/layer"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook/webhooktest"
	"github.com/propel-mc/propel/pkg/apis"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	"github.com/propel-mc/propel/pkg/webhook/interpreter"
	"github.com/propel-mc/propel/test/harness"
)

// TestWatchAgainstAPIServer runs the config manager on a real
// kube-apiserver: configurations created, updated and deleted there change
// the next call, and webhooks configured by Service are resolved through the
// control plane's Services.
func TestWatchAgainstAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver")
	}
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	ca, err := webhooktest.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	hosts := []string{"webhook-a.default.svc", "webhook-b.default.svc"}
	srvA := webhooktest.NewServerWithCA(t, ca, replicasHandler(1), hosts...)
	srvB := webhooktest.NewServerWithCA(t, ca, replicasHandler(2), hosts...)

	c, err := cache.New(env.ControllerManagerConfig(), cache.Options{Scheme: apis.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	// The layer resolves Services as Propel does, with its role.
	propel, err := client.New(env.ControllerManagerConfig(), client.Options{Scheme: apis.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	i := New(Options{Services: propel})
	if err := i.Watch(ctx, c); err != nil {
		t.Fatal(err)
	}
	gvk := schema.GroupVersionKind{Group: "workload.example.io", Version: "v1alpha1", Kind: "Workload"}
	if _, err := i.HookEnabled(gvk, configv1alpha1.InterpreterOperationInterpretReplica); !errors.Is(err, layer.ErrNotReady) {
		t.Fatalf("HookEnabled before the cache started: %v, want ErrNotReady", err)
	}
	go func() { _ = c.Start(ctx) }()
	harness.Eventually(t, "initial sync", func(context.Context) (bool, error) { return i.Synced(), nil })

	cfg := config("examples", serviceHook("workloads.example.io", "webhook-a", port(t, srvA), ca.PEM))
	if err := env.Client.Create(ctx, &cfg); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "hook enabled after create", func(context.Context) (bool, error) {
		return i.HookEnabled(gvk, configv1alpha1.InterpreterOperationInterpretReplica)
	})

	// No Service in the control plane: dialled by its cluster DNS name,
	// which does not resolve here.
	if _, _, err := i.GetReplicas(ctx, workload()); err == nil || !strings.Contains(err.Error(), "webhook-a.default.svc") {
		t.Fatalf("GetReplicas without Service: %v, want a failure dialling webhook-a.default.svc", err)
	}
	for _, name := range []string{"webhook-a", "webhook-b"} {
		createService(t, ctx, env.Client, externalName(name, "127.0.0.1"))
	}
	if n, _, err := i.GetReplicas(ctx, workload()); err != nil || n != 1 {
		t.Fatalf("GetReplicas via webhook-a = %d, %v; want 1", n, err)
	}

	// Update: point the hook at webhook-b.
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(&cfg), &cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Webhooks[0] = serviceHook("workloads.example.io", "webhook-b", port(t, srvB), ca.PEM)
	if err := env.Client.Update(ctx, &cfg); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "answer from webhook-b after update", func(context.Context) (bool, error) {
		n, _, err := i.GetReplicas(ctx, workload())
		return n == 2, err
	})

	// Delete: no hook any more.
	if err := env.Client.Delete(ctx, &cfg); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "hook disabled after delete", func(context.Context) (bool, error) {
		ok, err := i.HookEnabled(gvk, configv1alpha1.InterpreterOperationInterpretReplica)
		return !ok, err
	})

	t.Run("service resolution", func(t *testing.T) { testServiceResolution(t, ctx, env.Client) })
}

func testServiceResolution(t *testing.T, ctx context.Context, c client.Client) {
	headless := clusterIPService("headless", 443)
	headless.Spec.ClusterIP = corev1.ClusterIPNone
	createService(t, ctx, c, headless)
	createService(t, ctx, c, clusterIPService("plain", 443))
	nodePort := clusterIPService("nodeport", 8443)
	nodePort.Spec.Type = corev1.ServiceTypeNodePort
	createService(t, ctx, c, nodePort)
	plain, np := &corev1.Service{}, &corev1.Service{}
	_ = c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "plain"}, plain)
	_ = c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "nodeport"}, np)

	cases := []struct {
		name      string
		port      int32
		want, err string
	}{
		{"missing", 443, "missing.default.svc:443", ""},
		{"webhook-a", 9999, "127.0.0.1:9999", ""},
		{"plain", 443, net.JoinHostPort(plain.Spec.ClusterIP, "443"), ""},
		{"plain", 8443, "", `no service port 8443 found for service "plain"`},
		{"nodeport", 8443, net.JoinHostPort(np.Spec.ClusterIP, "8443"), ""},
		{"headless", 443, "", `cannot route to service with ClusterIP "None"`},
	}
	for _, tc := range cases {
		r := &serviceResolver{reader: c, namespace: "default", name: tc.name, port: tc.port}
		got, err := r.dial(ctx)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("resolve %s:%d = %q, %v; want error %q", tc.name, tc.port, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("resolve %s:%d = %q, %v; want %q", tc.name, tc.port, got, err, tc.want)
		}
	}
}

func replicasHandler(n int32) *interpreter.Webhook {
	return interpreter.NewWebhook(interpreter.HandlerFunc(func(context.Context, interpreter.Request) interpreter.Response {
		r := interpreter.Succeeded("")
		r.Replicas = ptr.To(n)
		return r
	}), nil)
}

func serviceHook(name, service string, port int32, ca []byte) configv1alpha1.ResourceInterpreterWebhook {
	return configv1alpha1.ResourceInterpreterWebhook{
		Name: name,
		ClientConfig: admissionregistrationv1.WebhookClientConfig{
			Service:  &admissionregistrationv1.ServiceReference{Namespace: "default", Name: service, Path: ptr.To("/interpret"), Port: ptr.To(port)},
			CABundle: ca,
		},
		Rules:                      []configv1alpha1.RuleWithOperations{allOps()},
		TimeoutSeconds:             ptr.To[int32](3),
		InterpreterContextVersions: []string{"v1alpha1"},
	}
}

func externalName(name, target string) *corev1.Service {
	s := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: target}}
	s.Namespace, s.Name = "default", name
	return s
}

func clusterIPService(name string, port int32) *corev1.Service {
	s := &corev1.Service{Spec: corev1.ServiceSpec{
		Type:  corev1.ServiceTypeClusterIP,
		Ports: []corev1.ServicePort{{Name: "https", Port: port}},
	}}
	s.Namespace, s.Name = "default", name
	return s
}

func createService(t *testing.T, ctx context.Context, c client.Client, s *corev1.Service) {
	t.Helper()
	if err := c.Create(ctx, s); err != nil {
		t.Fatalf("create service %s: %v", s.Name, err)
	}
}

func port(t *testing.T, srv *webhooktest.Server) int32 {
	_, p, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(p)
	return int32(n)
}
