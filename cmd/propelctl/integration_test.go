package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/propel-mc/propel/internal/cli/localenv"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

const deploymentReplicas = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: deployment-replicas}
spec:
  target: {apiVersion: apps/v1, kind: Deployment}
  customizations:
    replicaResource:
      luaScript: |
        function GetReplicas(obj)
          return obj.spec.replicas, {}
        end
`

// The commands against a real control plane: the namespace of the
// context, the context chosen by --context or --karmada-context, kubectl's
// printers for trace and replay, version, the explain alias and name
// completion.
func TestAgainstControlPlane(t *testing.T) {
	env := harness.StartT(t, harness.Options{Members: []localenv.MemberOptions{}, NoControlPlaneControllers: true})
	ctx := context.Background()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "nginx"}
	deploy := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "team-a"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
	}
	if err := env.Client.Create(ctx, deploy); err != nil {
		t.Fatal(err)
	}
	cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member-x"}, Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Pull}}
	if err := env.Client.Create(ctx, cluster); err != nil {
		t.Fatal(err)
	}

	// The current context is unreachable; "team" is the control plane with
	// namespace team-a.
	cfg, err := clientcmd.LoadFromFile(env.ControlPlane.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	good := cfg.Contexts[cfg.CurrentContext]
	cfg.Clusters["nowhere"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1"}
	cfg.Contexts["team"] = &clientcmdapi.Context{Cluster: good.Cluster, AuthInfo: good.AuthInfo, Namespace: "team-a"}
	cfg.Contexts["broken"] = &clientcmdapi.Context{Cluster: "nowhere", AuthInfo: good.AuthInfo}
	cfg.CurrentContext = "broken"
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, kubeconfig); err != nil {
		t.Fatal(err)
	}
	customization := filepath.Join(dir, "customization.yaml")
	if err := os.WriteFile(customization, []byte(deploymentReplicas), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string, error) {
		return execute(t, append([]string{"--kubeconfig", kubeconfig, "--request-timeout", "20s"}, args...)...)
	}
	mustRun := func(args ...string) string {
		t.Helper()
		out, errOut, err := run(args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut)
		}
		return out
	}

	t.Run("context selection and namespace of the context", func(t *testing.T) {
		if _, _, err := run("trace", "deployment/nginx"); err == nil {
			t.Error("the unreachable current context answered")
		}
		for _, sel := range [][]string{{"--context", "team"}, {"--karmada-context", "team"}, {"--context", "team", "--karmada-context", "team"}} {
			if out := mustRun(append([]string{"trace", "deployment/nginx", "-o", "name"}, sel...)...); out != "deployment.apps/nginx\n" {
				t.Errorf("%v: -o name printed %q", sel, out)
			}
		}
		if _, _, err := run("trace", "deployment/nginx", "--context", "team", "--karmada-context", "broken"); err == nil || !strings.Contains(err.Error(), "different contexts") {
			t.Errorf("conflicting contexts: err %v", err)
		}
		if _, _, err := run("trace", "deployment/nginx", "--context", "team", "-n", "default"); err == nil {
			t.Error("-n default found the deployment of team-a")
		}
	})

	t.Run("trace printers", func(t *testing.T) {
		if out := mustRun("trace", "deployment/nginx", "--context", "team", "-o", "jsonpath={.template.namespace}/{.template.name}"); out != "team-a/nginx" {
			t.Errorf("jsonpath printed %q", out)
		}
		var x struct {
			SchemaVersion string                `json:"schemaVersion"`
			Template      struct{ Kind string } `json:"template"`
		}
		if err := yaml.Unmarshal([]byte(mustRun("trace", "deployment/nginx", "--context", "team", "-o", "yaml")), &x); err != nil {
			t.Fatal(err)
		}
		if x.SchemaVersion != "propel.explain/v1" || x.Template.Kind != "Deployment" {
			t.Errorf("-o yaml: %+v", x)
		}
		if out := mustRun("trace", "deployment/nginx", "--context", "team", "-o", "go-template={{.template.kind}}"); out != "Deployment" {
			t.Errorf("go-template printed %q", out)
		}
	})

	t.Run("replay printers", func(t *testing.T) {
		if out := mustRun("interpret", "--replay", "-f", customization, "--context", "team", "-o", "name"); out != "deployment.apps/nginx\n" {
			t.Errorf("-o name printed %q", out)
		}
		var rep struct {
			Objects []struct{ Name, Namespace string }
			Summary struct{ Objects int }
		}
		out := mustRun("interpret", "--replay", "-f", customization, "--context", "team", "-o", "yaml")
		if err := yaml.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("-o yaml is not YAML: %v\n%s", err, out)
		}
		if rep.Summary.Objects != 1 || len(rep.Objects) != 1 || rep.Objects[0].Namespace != "team-a" {
			t.Errorf("-o yaml: %+v\n%s", rep, out)
		}
		if out := mustRun("interpret", "--replay", "-f", customization, "--context", "team", "-o", "jsonpath={.summary.objects}"); out != "1" {
			t.Errorf("jsonpath printed %q", out)
		}
		if out := mustRun("interpret", "--replay", "-f", customization, "--context", "team"); !strings.Contains(out, "1 objects:") {
			t.Errorf("default text: %q", out)
		}
	})

	t.Run("explain alias", func(t *testing.T) {
		out, errOut, err := run("explain", "deployment/nginx", "--context", "team", "-o", "name")
		if err != nil || out != "deployment.apps/nginx\n" {
			t.Errorf("out %q, err %v", out, err)
		}
		if !strings.Contains(errOut, `"explain" is deprecated`) || !strings.Contains(errOut, "propelctl trace") {
			t.Errorf("stderr %q: no deprecation notice", errOut)
		}
	})

	t.Run("version", func(t *testing.T) {
		var v versions
		if err := json.Unmarshal([]byte(mustRun("version", "--context", "team", "-o", "json")), &v); err != nil {
			t.Fatal(err)
		}
		if v.ClientVersion == nil || v.ServerVersion == nil || !strings.HasPrefix(v.ServerVersion.GitVersion, "v1.") {
			t.Errorf("got %+v", v)
		}
		if out := mustRun("version", "--context", "team"); !strings.Contains(out, "Server Version: v1.") {
			t.Errorf("text: %q", out)
		}
	})

	t.Run("completion", func(t *testing.T) {
		if out := mustRun("__complete", "--context", "team", "trace", "deployments.apps/ng"); !strings.Contains(out, "deployments.apps/nginx\n") {
			t.Errorf("names: %q", out)
		}
		if out := mustRun("__complete", "--context", "team", "trace", "deployments"); !strings.Contains(out, "deployments.apps/\n") {
			t.Errorf("resources: %q", out)
		}
		if out := mustRun("__complete", "--context", "team", "trace", "-n", "team"); !strings.Contains(out, "team-a\n") {
			t.Errorf("namespaces: %q", out)
		}
		if out := mustRun("__complete", "--context", "team", "unjoin", "mem"); out != "member-x\n:4\n" {
			t.Errorf("clusters: %q", out)
		}
		if out := mustRun("__complete", "trace", "--context", "te"); !strings.Contains(out, "team\n") {
			t.Errorf("contexts: %q", out)
		}
	})
}
