package e2e

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/internal/shared/names"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

// startSlowWebhook serves TLS on loopback and answers every request only
// after delay (longer than the hook's timeout).
func startSlowWebhook(t *testing.T, delay time.Duration) string {
	t.Helper()
	cert, err := env.PKI.IssueServing("slow-interpreter-webhook")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.LoadX509KeyPair(cert.CertFile, cert.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
		}
		http.Error(w, "too late", http.StatusServiceUnavailable)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().(*net.TCPAddr).String()
}

// TestWebhookTimeoutIsReported: an interpreter webhook slower than its
// timeoutSeconds makes applying the policy fail with an event on the
// template that names the webhook; what already runs is not deleted.
func TestWebhookTimeoutIsReported(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	installWorkloadCRD(t)
	const wlName = "wl-slow"
	pol := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: wlName + "-propagation"},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "workload.example.io/v1alpha1", Kind: "Workload", Name: wlName}},
			Placement:         policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1"}}},
		},
	}
	createAll(t, pol)
	workload := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(karmadaSample(t, "workload/workload-sample.yaml"), &workload.Object); err != nil {
		t.Fatal(err)
	}
	workload.SetNamespace("default")
	workload.SetName(wlName)
	harness.Eventually(t, "create the Workload template", func(ctx context.Context) (bool, error) {
		return env.Client.Create(ctx, workload.DeepCopy()) == nil, nil
	}, harness.LogsIn(env.LogDir))
	member1 := dynamic.NewForConfigOrDie(env.Member("member1").Config).Resource(workloadGVR).Namespace("default")
	harness.Eventually(t, "member1 runs the Workload before the webhook exists", func(ctx context.Context) (bool, error) {
		_, err := member1.Get(ctx, wlName, metav1.GetOptions{})
		return err == nil, err
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))

	addr := startSlowWebhook(t, 5*time.Second)
	const hookName = "slow.workload.example.io"
	riwc := &configv1alpha1.ResourceInterpreterWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "propel-e2e-slow-webhook"},
		Webhooks: []configv1alpha1.ResourceInterpreterWebhook{{
			Name: hookName,
			Rules: []configv1alpha1.RuleWithOperations{{
				Operations: []configv1alpha1.InterpreterOperation{"InterpretReplica", "ReviseReplica", "Retain", "AggregateStatus", "InterpretHealth", "InterpretStatus", "InterpretDependency"},
				APIGroups:  []string{"workload.example.io"}, APIVersions: []string{"v1alpha1"}, Kinds: []string{"Workload"},
			}},
			ClientConfig:               admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://" + addr + "/interpret"), CABundle: env.PKI.CAPEM},
			InterpreterContextVersions: []string{"v1alpha1"},
			TimeoutSeconds:             ptr.To[int32](1),
		}},
	}
	createAll(t, riwc)
	t.Cleanup(func() {
		_ = env.Client.Delete(context.Background(), riwc)
		_ = env.Client.Delete(context.Background(), workload)
		_ = env.Client.Delete(context.Background(), pol)
	})

	// failures counts the ApplyPolicyFailed events on the template that
	// name the webhook.
	failures := func(ctx context.Context) (int32, error) {
		events, err := env.Kube.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return 0, err
		}
		var n int32
		for _, e := range events.Items {
			if e.InvolvedObject.Kind != "Workload" || e.InvolvedObject.Name != wlName || e.Type != corev1.EventTypeWarning {
				continue
			}
			if e.Reason == "ApplyPolicyFailed" && strings.Contains(e.Message, hookName) {
				n += max(e.Count, 1)
			}
		}
		return n, nil
	}
	// Loading the configuration re-interprets the claimed template, which
	// now fails.
	var seen int32
	harness.Eventually(t, "an ApplyPolicyFailed event on the template names the webhook", func(ctx context.Context) (bool, error) {
		n, err := failures(ctx)
		seen = n
		return n > 0, err
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	// The webhook is in use now: a template change fails again and does
	// not reach member1.
	harness.Eventually(t, "label the template", func(ctx context.Context) (bool, error) {
		tmpl := &unstructured.Unstructured{}
		tmpl.SetGroupVersionKind(workload.GroupVersionKind())
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(workload), tmpl); err != nil {
			return false, err
		}
		labels := tmpl.GetLabels()
		labels["rollout"] = "slow"
		tmpl.SetLabels(labels)
		return env.Client.Update(ctx, tmpl) == nil, nil
	}, harness.LogsIn(env.LogDir))
	harness.Eventually(t, "applying the changed template fails again", func(ctx context.Context) (bool, error) {
		n, err := failures(ctx)
		return n > seen, err
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))

	// Nothing already propagated is deleted.
	rb := &workv1alpha2.ResourceBinding{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: names.BindingName("Workload", wlName)}, rb); err != nil || rb.DeletionTimestamp != nil {
		t.Errorf("binding after the webhook timeout: %v (deleting %v)", err, rb.DeletionTimestamp)
	}
	if ok, err := workExists(ctx, "member1", "Workload", wlName, "default"); !ok {
		t.Errorf("member1's Work is gone after the webhook timeout (%v)", err)
	}
	if w, err := member1.Get(ctx, wlName, metav1.GetOptions{}); err != nil || w.GetDeletionTimestamp() != nil {
		t.Errorf("member1's Workload after the webhook timeout: %v", err)
	}
	if w, err := member1.Get(ctx, wlName, metav1.GetOptions{}); err == nil && w.GetLabels()["rollout"] == "slow" {
		t.Errorf("member1 got the change although interpreting it failed")
	}
}
