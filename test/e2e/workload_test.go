package e2e

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/internal/cli/localenv"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

var workloadGVR = schema.GroupVersionResource{Group: "workload.example.io", Version: "v1alpha1", Resource: "workloads"}

func karmadaSample(t *testing.T, rel string) []byte {
	t.Helper()
	shared := harness.SharedDir()
	if shared == "" {
		t.Skip("../shared is absent: the Karmada samples cannot be read")
	}
	data, err := os.ReadFile(filepath.Join(shared, "reference", "karmada-samples", rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// installWorkloadCRD installs the sample Workload CRD in the control plane
// and in every member (members must know the kind to run it).
func installWorkloadCRD(t *testing.T) {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(karmadaSample(t, "workload/workload.example.io_workloads.yaml"), crd); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	crds := []*apiextensionsv1.CustomResourceDefinition{crd}
	if err := localenv.InstallCRDs(ctx, env.ControlPlane.Config, crds); err != nil {
		t.Fatal(err)
	}
	// Propel claims Workloads only once it is granted their group.
	if err := env.GrantTemplates(ctx, "workload-example", crd.Spec.Group); err != nil {
		t.Fatal(err)
	}
	for _, m := range env.Members {
		if err := localenv.InstallCRDs(ctx, m.Config, crds); err != nil {
			t.Fatal(err)
		}
	}
}

// startExampleWebhook builds and runs cmd/interpreter-webhook-example with a
// serving certificate from the environment's CA and returns its address.
func startExampleWebhook(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "interpreter-webhook-example")
	build := exec.Command("go", "build", "-o", bin, "./cmd/interpreter-webhook-example")
	build.Dir = harness.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build example webhook: %v\n%s", err, out)
	}
	cert, err := env.PKI.IssueServing("interpreter-webhook-example")
	if err != nil {
		t.Fatal(err)
	}
	port, err := localenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--bind-address=127.0.0.1", fmt.Sprintf("--port=%d", port), "--cert-file="+cert.CertFile, "--key-file="+cert.KeyFile)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			if strings.Contains(s.Text(), "serving") {
				close(ready)
				return
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("example webhook did not start")
	}
	return fmt.Sprintf("127.0.0.1:%d", port)
}

// TestWorkloadThroughExampleWebhook is seed scenario (b): Karmada's Workload
// sample interpreted by cmd/interpreter-webhook-example, with a 2:1 policy.
func TestWorkloadThroughExampleWebhook(t *testing.T) {
	membersReady(t)
	ctx := context.Background()
	installWorkloadCRD(t)
	addr := startExampleWebhook(t)

	// Karmada's sample configuration with its install-time placeholders filled.
	raw := strings.NewReplacer(
		"{{karmada-interpreter-webhook-example-svc-address}}:443", addr,
		"{{caBundle}}", base64.StdEncoding.EncodeToString(env.PKI.CAPEM),
	).Replace(string(karmadaSample(t, "workload/webhook-configuration.yaml")))
	riwc := &configv1alpha1.ResourceInterpreterWebhookConfiguration{}
	if err := yaml.UnmarshalStrict([]byte(raw), riwc); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(ctx, riwc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), riwc) })

	runWorkloadScenario(t, "nginx")
}

// runWorkloadScenario propagates Karmada's Workload sample, renamed to wlName,
// with a 2:1 policy and checks what the interpreter answers: replicas split
// 2/1 (InterpretReplica, ReviseReplica), member1's spec.paused kept (Retain)
// and the members' ready replicas summed into the template
// (InterpretStatus, AggregateStatus).
func runWorkloadScenario(t *testing.T, wlName string) {
	ctx := context.Background()
	pol := &policyv1alpha1.PropagationPolicy{}
	if err := yaml.UnmarshalStrict(karmadaSample(t, "workload/workload-propagationpolicy.yaml"), pol); err != nil {
		t.Fatal(err)
	}
	pol.Namespace, pol.Name = "default", wlName+"-workload-propagation"
	pol.Spec.ResourceSelectors[0].Name = wlName
	pol.Spec.Placement.ClusterAffinity.ClusterNames = []string{"member1", "member2"}
	weights := pol.Spec.Placement.ReplicaScheduling.WeightPreference
	weights.StaticWeightList = weights.StaticWeightList[:2]
	weights.StaticWeightList[0].Weight = 2
	workload := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(karmadaSample(t, "workload/workload-sample.yaml"), &workload.Object); err != nil {
		t.Fatal(err)
	}
	workload.SetNamespace("default")
	workload.SetName(wlName)
	if err := env.Client.Create(ctx, pol); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "create the Workload template", func(ctx context.Context) (bool, error) {
		return env.Client.Create(ctx, workload.DeepCopy()) == nil, nil // the RESTMapper learns the new kind lazily
	}, harness.LogsIn(env.LogDir))

	want := map[string]int64{"member1": 2, "member2": 1}
	members := map[string]dynamic.NamespaceableResourceInterface{}
	for name := range want {
		members[name] = dynamic.NewForConfigOrDie(env.Member(name).Config).Resource(workloadGVR)
	}
	for name, replicas := range want {
		harness.Eventually(t, name+" runs its share of the Workload", func(ctx context.Context) (bool, error) {
			w, err := members[name].Namespace("default").Get(ctx, wlName, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			got, _, _ := unstructured.NestedInt64(w.Object, "spec", "replicas")
			return got == replicas, nil
		}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
	}

	// A member-side controller pauses member1's Workload; the webhook's
	// Retain keeps that while template changes still flow.
	harness.Eventually(t, "pause member1's Workload", func(ctx context.Context) (bool, error) {
		w, err := members["member1"].Namespace("default").Get(ctx, wlName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		_ = unstructured.SetNestedField(w.Object, true, "spec", "paused")
		_, err = members["member1"].Namespace("default").Update(ctx, w, metav1.UpdateOptions{})
		return err == nil, nil
	}, harness.LogsIn(env.LogDir))
	harness.Eventually(t, "label the template", func(ctx context.Context) (bool, error) {
		tmpl := &unstructured.Unstructured{}
		tmpl.SetGroupVersionKind(workload.GroupVersionKind())
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: wlName}, tmpl); err != nil {
			return false, err
		}
		labels := tmpl.GetLabels()
		labels["rollout"] = "2"
		tmpl.SetLabels(labels)
		return env.Client.Update(ctx, tmpl) == nil, nil
	}, harness.LogsIn(env.LogDir))
	harness.Eventually(t, "member1 gets the template change and keeps paused", func(ctx context.Context) (bool, error) {
		w, err := members["member1"].Namespace("default").Get(ctx, wlName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		paused, _, _ := unstructured.NestedBool(w.Object, "spec", "paused")
		if w.GetLabels()["rollout"] == "2" && !paused {
			return false, fmt.Errorf("member1's paused flag was overwritten")
		}
		return w.GetLabels()["rollout"] == "2" && paused, nil
	}, harness.LogsIn(env.LogDir))

	// Members report ready replicas; the webhook's AggregateStatus sums them
	// into the template.
	for name, replicas := range want {
		harness.Eventually(t, name+" reports ready replicas", func(ctx context.Context) (bool, error) {
			w, err := members[name].Namespace("default").Get(ctx, wlName, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			_ = unstructured.SetNestedField(w.Object, replicas, "status", "readyReplicas")
			_, err = members[name].Namespace("default").UpdateStatus(ctx, w, metav1.UpdateOptions{})
			return err == nil, nil
		}, harness.LogsIn(env.LogDir))
	}
	harness.Eventually(t, "template status sums the members' ready replicas", func(ctx context.Context) (bool, error) {
		tmpl := &unstructured.Unstructured{}
		tmpl.SetGroupVersionKind(workload.GroupVersionKind())
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "default", Name: wlName}, tmpl); err != nil {
			return false, err
		}
		ready, _, _ := unstructured.NestedInt64(tmpl.Object, "status", "readyReplicas")
		return ready == 3, nil
	}, harness.Timeout(2*time.Minute), harness.LogsIn(env.LogDir))
}
