package detector

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/webhook/webhooktest"
	"github.com/propel-mc/propel/internal/pipeline/detector/templatecontroller"
	"github.com/propel-mc/propel/internal/shared/names"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/pkg/webhook/interpreter"
	"github.com/propel-mc/propel/test/harness"
)

// The shared detector's interpreter (startDetector) is a webhook layer in
// front of the native one, the webhook interpreting only StatefulSets
// (which no other test uses), wrapped by panicOnce.

// outage is the interpreter webhook for StatefulSets: it fails (HTTP 500)
// until healthy is set, then answers 5 replicas.
var outage struct {
	healthy  atomic.Bool
	failures atomic.Int64
}

const outageReplicas = 5

// outageWebhookLayer starts the webhook server (for the whole test binary)
// and returns an interpreter layer configured with it.
func outageWebhookLayer(t *testing.T) *webhook.Interpreter {
	t.Helper()
	ca, err := webhooktest.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	cert, err := ca.ServingCert("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	sdk := interpreter.NewWebhook(interpreter.HandlerFunc(func(_ context.Context, req interpreter.Request) interpreter.Response {
		res := interpreter.Succeeded("")
		res.Replicas = ptr.To[int32](outageReplicas)
		return res
	}), nil)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !outage.healthy.Load() {
			outage.failures.Add(1)
			http.Error(w, "interpreter down for maintenance", http.StatusInternalServerError)
			return
		}
		sdk.ServeHTTP(w, r)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv.StartTLS() // lives as long as the test binary, like the shared detector
	wh := webhook.New(webhook.Options{})
	cfg := configv1alpha1.ResourceInterpreterWebhookConfiguration{Webhooks: []configv1alpha1.ResourceInterpreterWebhook{{
		Name:         "statefulsets.outage.example.io",
		ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr.To(srv.URL), CABundle: ca.PEM},
		Rules: []configv1alpha1.RuleWithOperations{{
			Operations: []configv1alpha1.InterpreterOperation{configv1alpha1.InterpreterOperationInterpretReplica},
			APIGroups:  []string{"apps"}, APIVersions: []string{"v1"}, Kinds: []string{"StatefulSet"},
		}},
		InterpreterContextVersions: []string{"v1alpha1"},
	}}}
	cfg.Name = "outage"
	wh.LoadConfig([]configv1alpha1.ResourceInterpreterWebhookConfiguration{cfg})
	return wh
}

// panicLabel makes panicOnce panic on the first replica call for a template.
const panicLabel = "detector.propel.test/panic-once"

// panicOnce panics the first time it is asked for the replicas of a
// template labelled panicLabel, then answers through next.
type panicOnce struct {
	next     templatecontroller.ReplicaInterpreter
	mu       sync.Mutex
	panicked map[string]bool
}

func (p *panicOnce) HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) bool {
	return p.next.HookEnabled(gvk, op)
}

func (p *panicOnce) GetReplicas(ctx context.Context, obj *unstructured.Unstructured) (int32, *workv1alpha2.ReplicaRequirements, error) {
	if obj.GetLabels()[panicLabel] != "" {
		p.mu.Lock()
		first := !p.panicked[obj.GetName()]
		p.panicked[obj.GetName()] = true
		p.mu.Unlock()
		if first {
			panic("injected panic in the replica interpreter")
		}
	}
	return p.next.GetReplicas(ctx, obj)
}

func (p *panicOnce) GetComponents(ctx context.Context, obj *unstructured.Unstructured) ([]workv1alpha2.Component, error) {
	return p.next.GetComponents(ctx, obj)
}

func (p *panicOnce) timesPanicked() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.panicked)
}

// testInterpreter is the shared detector's interpreter: the outage
// webhook, the Lua customizations of the control plane (lua, which the
// caller feeds) and the native layer.
func testInterpreter(t *testing.T, lua *customization.Interpreter) *panicOnce {
	return &panicOnce{next: resourceinterpreter.New(outageWebhookLayer(t), lua, native.New()), panicked: map[string]bool{}}
}

// logLines collects what the shared detector logs.
var logLines struct {
	mu    sync.Mutex
	lines []string
}

func captureLogger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		logLines.mu.Lock()
		defer logLines.mu.Unlock()
		logLines.lines = append(logLines.lines, prefix+" "+args)
	}, funcr.Options{})
}

func loggedLine(parts ...string) (string, bool) {
	logLines.mu.Lock()
	defer logLines.mu.Unlock()
	for _, l := range logLines.lines {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return l, true
		}
	}
	return "", false
}

func statefulSetPolicy(name string) *policyv1alpha1.PropagationPolicy {
	return &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: policyv1alpha1.PropagationSpec{ResourceSelectors: []policyv1alpha1.ResourceSelector{
			{APIVersion: "apps/v1", Kind: "StatefulSet", Name: name}}},
	}
}

func statefulSet(name string, replicas int32) *appsv1.StatefulSet {
	labels := map[string]string{"app": name}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "nginx"}}},
			},
		},
	}
}

// TestInterpreterWebhookOutage: while the interpreter
// webhook fails, the template gets ApplyPolicyFailed events and the
// detector logs the failure naming template and webhook, and keeps
// retrying; once the webhook answers again the binding gets its replicas.
// The retry delay of interpreter failures is capped
// (templatecontroller.TestInterpreterFailureRetryIsCapped checks the cap),
// so convergence after an outage takes at most that cap; the timeout below
// only bounds a broken run.
func TestInterpreterWebhookOutage(t *testing.T) {
	startDetector(t)
	ctx := context.Background()
	for _, o := range []client.Object{statefulSetPolicy("outage"), statefulSet("outage", 2)} {
		if err := cl.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	harness.Eventually(t, "the failing webhook is retried", func(context.Context) (bool, error) {
		return outage.failures.Load() >= 3, nil
	})
	harness.Eventually(t, "ApplyPolicyFailed event on the template", func(ctx context.Context) (bool, error) {
		events := &corev1.EventList{}
		if err := cl.List(ctx, events, client.InNamespace("default")); err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Kind == "StatefulSet" && e.InvolvedObject.Name == "outage" && e.Reason == templatecontroller.ReasonApplyPolicyFailed &&
				strings.Contains(e.Message, "statefulsets.outage.example.io") {
				return true, nil
			}
		}
		return false, nil
	})
	line, ok := loggedLine(`"msg"="resource interpreter failed, will retry"`, `"template"={"name"="outage" "namespace"="default"}`,
		`"webhook"="outage/statefulsets.outage.example.io"`, `"operation"="InterpretReplica"`, "interpreter down for maintenance")
	if !ok {
		t.Fatalf("the outage was not logged with template, operation and webhook")
	}
	if len(line) > 4096 {
		t.Errorf("log line of %d bytes: error text not bounded", len(line))
	}
	if _, err := getRB(ctx, "default", names.BindingName("StatefulSet", "outage")); err == nil {
		t.Fatal("binding created while the interpreter failed")
	}

	outage.healthy.Store(true)
	harness.Eventually(t, "binding with the webhook's replicas once it answers again", func(ctx context.Context) (bool, error) {
		rb, err := getRB(ctx, "default", names.BindingName("StatefulSet", "outage"))
		return err == nil && rb.Spec.Replicas == outageReplicas, nil
	})
}

// TestPanickingReconcileIsRetried: a panic while
// reconciling a template is recovered, the detector keeps running, and the
// template is retried until it gets its binding.
func TestPanickingReconcileIsRetried(t *testing.T) {
	startDetector(t)
	ctx := context.Background()
	pol := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "panic-once"},
		Spec: policyv1alpha1.PropagationSpec{ResourceSelectors: []policyv1alpha1.ResourceSelector{
			{APIVersion: "apps/v1", Kind: "Deployment", Name: "panic-once"}}},
	}
	deploy := &appsv1.Deployment{}
	deploy.Namespace, deploy.Name, deploy.Labels = "default", "panic-once", map[string]string{panicLabel: "true", "app": "panic-once"}
	deploy.Spec = appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](3),
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "panic-once"}},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "panic-once"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "nginx"}}},
		},
	}
	for _, o := range []client.Object{pol, deploy} {
		if err := cl.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	harness.Eventually(t, "binding of the template whose first reconcile panicked", func(ctx context.Context) (bool, error) {
		rb, err := getRB(ctx, "default", names.BindingName("Deployment", "panic-once"))
		return err == nil && rb.Spec.Replicas == 3, nil
	})
	if got := interp.timesPanicked(); got != 1 {
		t.Errorf("the interpreter panicked for %d templates, want 1", got)
	}
}
