package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/replay"
	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
	"github.com/propel-mc/propel/test/harness"
)

var (
	propelctlOnce sync.Once
	propelctlBin  string
	propelctlErr  error
)

// propelctl builds cmd/propelctl once per test binary.
func propelctl(t *testing.T) string {
	t.Helper()
	propelctlOnce.Do(func() {
		dir, err := os.MkdirTemp("", "propelctl-")
		if err != nil {
			propelctlErr = err
			return
		}
		propelctlBin = filepath.Join(dir, "propelctl")
		build := exec.Command("go", "build", "-o", propelctlBin, "./cmd/propelctl")
		build.Dir = harness.RepoRoot()
		if out, err := build.CombinedOutput(); err != nil {
			propelctlErr = fmt.Errorf("build propelctl: %v\n%s", err, out)
		}
	})
	if propelctlErr != nil {
		t.Fatal(propelctlErr)
	}
	return propelctlBin
}

// replayCustomization is a customization of Deployments with one
// healthInterpretation script.
func replayCustomization(name, script string) string {
	indented := "        " + strings.ReplaceAll(strings.TrimSpace(script), "\n", "\n        ")
	return fmt.Sprintf(`apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: %s
spec:
  target:
    apiVersion: apps/v1
    kind: Deployment
  customizations:
    healthInterpretation:
      luaScript: |
%s
`, name, indented)
}

// runReplay runs propelctl interpret --replay with the customization and
// returns its JSON report and exit code.
func runReplay(t *testing.T, customization string, args ...string) (*replay.Report, string, int) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "customization.yaml")
	if err := os.WriteFile(file, []byte(customization), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(extra ...string) (string, int) {
		cmd := exec.Command(propelctl(t), append([]string{"interpret", "--replay", "-f", file, "--kubeconfig", env.ControlPlane.Kubeconfig}, append(args, extra...)...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out) + stderr.String(), code
	}
	raw, code := run("-o", "json")
	rep := &replay.Report{}
	if err := json.Unmarshal([]byte(raw[:strings.LastIndex(raw, "}")+1]), rep); err != nil {
		t.Fatalf("report: %v\n%s", err, raw)
	}
	text, textCode := run()
	if textCode != code {
		t.Errorf("exit code %d with -o json, %d with text", code, textCode)
	}
	return rep, text, code
}

// TestReplayHealthChangeForHalf: four Deployments run healthy in member1;
// a customization that calls two of them unhealthy is reported as exactly
// those two changed, the others same; a broken script is reported as an
// error for every object and the command exits non-zero.
func TestReplayHealthChangeForHalf(t *testing.T) {
	membersReady(t)
	const ns = "replay-e2e"
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	pol := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "replay"},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"replay": "yes"}}}},
			Placement:         policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"member1"}}},
		},
	}
	objs := []client.Object{nsObj, pol}
	for i := range 4 {
		d := testDeployment(fmt.Sprintf("replay-%d", i), "nginx:1.25", 1)
		d.Namespace = ns
		d.Labels["replay"] = "yes"
		objs = append(objs, d)
	}
	createAll(t, objs...)
	t.Cleanup(func() {
		for i := len(objs) - 1; i >= 0; i-- {
			_ = env.Client.Delete(context.Background(), objs[i])
		}
	})
	for i := range 4 {
		name := fmt.Sprintf("replay-%d", i)
		harness.Eventually(t, name+" is healthy in member1", func(ctx context.Context) (bool, error) {
			rb := &workv1alpha2.ResourceBinding{}
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name + "-deployment"}, rb); err != nil {
				return false, err
			}
			st := rb.Status.AggregatedStatus
			return len(st) == 1 && st[0].Health == workv1alpha2.ResourceHealthy, nil
		}, harness.Timeout(3*time.Minute), harness.LogsIn(env.LogDir))
	}

	half := replayCustomization("replay-health-half", `
function InterpretHealth(observed)
  local last = string.sub(observed.metadata.name, -1)
  if last == "1" or last == "3" then
    return false
  end
  return true
end`)
	rep, text, code := runReplay(t, half, "-n", ns, "--observed")
	t.Logf("replay of a health change:\n%s", text)
	if code != 0 {
		t.Errorf("exit code %d, want 0 (no errors)", code)
	}
	if got := rep.Summary.String(); got != "4 objects: 2 same, 2 changed, 0 error" {
		t.Errorf("summary %q", got)
	}
	if !strings.Contains(text, "4 objects: 2 same, 2 changed, 0 error\n") {
		t.Errorf("text lacks the summary line:\n%s", text)
	}
	for _, obj := range rep.Objects {
		want := replay.Same
		if strings.HasSuffix(obj.Name, "1") || strings.HasSuffix(obj.Name, "3") {
			want = replay.Changed
		}
		if obj.Outcome != want || obj.Cluster != "member1" || len(obj.Operations) != 1 {
			t.Errorf("%s@%s: %s with %d operations, want %s with 1", obj.Name, obj.Cluster, obj.Outcome, len(obj.Operations), want)
			continue
		}
		op := obj.Operations[0]
		if op.Operation != "InterpretHealth" || op.Active != "native" || op.New != "customization replay-health-half" {
			t.Errorf("%s: %+v", obj.Name, op)
		}
		if want == replay.Changed && (len(op.Changes) != 1 || op.Changes[0].Old != true || op.Changes[0].New != false) {
			t.Errorf("%s changes %+v, want healthy true -> false", obj.Name, op.Changes)
		}
	}
	// Without --observed, member-side operations are skipped and said so.
	rep, _, code = runReplay(t, half, "-n", ns)
	if code != 0 || rep.Summary.Objects != 0 || len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0], "--observed") {
		t.Errorf("without --observed: exit %d, report %+v", code, rep)
	}

	broken := replayCustomization("replay-health-broken", `
function InterpretHealth(observed)
  return observed.spec.nothing.here
end`)
	rep, text, code = runReplay(t, broken, "-n", ns, "--observed")
	t.Logf("replay of a broken script:\n%s", text)
	if code == 0 {
		t.Error("a failing script exits 0")
	}
	if got := rep.Summary.String(); got != "4 objects: 0 same, 0 changed, 4 error" {
		t.Errorf("summary %q", got)
	}
	for _, obj := range rep.Objects {
		if len(obj.Operations) != 1 || obj.Operations[0].NewError == "" || !strings.Contains(obj.Operations[0].NewError, "replay-health-broken") {
			t.Errorf("%s: %+v, want the script's error naming the customization", obj.Name, obj.Operations)
		}
	}
	if !strings.Contains(text, "error: ") || !strings.Contains(text, "propelctl: the new configuration fails on some objects") {
		t.Errorf("text lacks the errors:\n%s", text)
	}
}
