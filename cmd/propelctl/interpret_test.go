package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/customization"
	"github.com/propel-mc/propel/internal/interpreter/resourceinterpreter/native"
)

const workload = `apiVersion: workload.example.io/v1alpha1
kind: Workload
metadata: {name: nginx, namespace: default}
spec:
  replicas: 3
  paused: false
  template:
    spec:
      containers:
      - name: nginx
        image: nginx
        resources: {requests: {cpu: 100m}}
`

const brokenCustomization = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: broken}
spec:
  target: {apiVersion: workload.example.io/v1alpha1, kind: Workload}
  customizations:
    replicaResource:
      luaScript: |
        function GetReplicas(obj)
          return obj.spec.nothing.replicas, nil
        end
    healthInterpretation:
      luaScript: |
        function InterpretHealth(obj)
          return obj.status.ready ==
        end
`

// runInterpret runs `propelctl interpret args...` and returns stdout.
func runInterpret(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	cmd := newInterpretCommand(newControlPlaneFlags())
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func files(t *testing.T) (sample, desired, broken string) {
	t.Helper()
	dir := t.TempDir()
	desired, broken = filepath.Join(dir, "workload.yaml"), filepath.Join(dir, "broken.yaml")
	if err := os.WriteFile(desired, []byte(workload), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, []byte(brokenCustomization), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join("..", "..", "config", "samples", "workload", "customization.yaml"), desired, broken
}

func TestInterpretJSON(t *testing.T) {
	sample, desired, _ := files(t)
	out, err := runInterpret(t, "", "-f", sample, "--operation", "interpretReplica", "--desired-file", desired, "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Replica  int `json:"replica"`
		Requires struct {
			ResourceRequest map[string]string `json:"resourceRequest"`
		} `json:"requires"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if got.Replica != 3 || got.Requires.ResourceRequest["cpu"] != "100m" {
		t.Fatalf("got %+v", got)
	}

	items := `[{"clusterName":"member1","status":{"readyReplicas":2}},{"clusterName":"member2","status":{"readyReplicas":1}}]`
	out, err = runInterpret(t, items, "-f", sample, "--operation", "AggregateStatus", "--desired-file", desired, "--status-file", "-", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"readyReplicas": 3`) {
		t.Fatalf("aggregated status does not sum ready replicas:\n%s", out)
	}

	out, err = runInterpret(t, "", "-f", sample, "--operation", "retain", "--desired-file", desired, "--observed-file", desired, "-o", "json")
	if err != nil || !strings.Contains(out, `"retained"`) {
		t.Fatalf("retain: %v\n%s", err, out)
	}
}

func TestInterpretYAMLOutputFormat(t *testing.T) {
	sample, desired, _ := files(t)
	out, err := runInterpret(t, "", "-f", sample, "--operation", "InterpretHealth", "--observed-file", desired)
	if err != nil {
		t.Fatal(err)
	}
	if out != "---\n# [1/1] healthy:\nfalse\n" {
		t.Fatalf("output %q", out)
	}
}

func TestInterpretFailingScriptExitsNonZero(t *testing.T) {
	_, desired, broken := files(t)
	_, err := runInterpret(t, "", "-f", broken, "--operation", "InterpretReplica", "--desired-file", desired)
	if err == nil {
		t.Fatal("a failing script succeeded")
	}
	for _, want := range []string{"broken", ":2:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q (customization and Lua line)", err, want)
		}
	}
}

func TestInterpretCheck(t *testing.T) {
	sample, _, broken := files(t)
	out, err := runInterpret(t, "", "-f", sample, "--check")
	if err != nil {
		t.Fatalf("check of the sample failed: %v\n%s", err, out)
	}
	for _, want := range []string{"TARGET: workload.example.io/v1alpha1 Workload", "Retain:", "PASS", "InterpretDependency:", "UNSET"} {
		if !strings.Contains(out, want) {
			t.Errorf("check output lacks %q:\n%s", want, out)
		}
	}
	out, err = runInterpret(t, "", "-f", broken, "--check")
	if err == nil {
		t.Fatalf("check of a broken script succeeded:\n%s", out)
	}
	if !strings.Contains(out, "InterpretHealth:") || !strings.Contains(out, "ERROR: broken:3:") {
		t.Errorf("check output does not name the broken rule and line:\n%s", out)
	}
}

func TestInterpretBadInput(t *testing.T) {
	sample, desired, _ := files(t)
	if _, err := runInterpret(t, "", "-f", sample, "--operation", "explode", "--desired-file", desired); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("unknown operation: %v", err)
	}
	if _, err := runInterpret(t, "", "-f", sample, "--desired-file", desired); err == nil {
		t.Error("missing --operation accepted")
	}
	if _, err := runInterpret(t, "", "-f", desired, "--check"); err == nil || !strings.Contains(err.Error(), "not a ResourceInterpreterCustomization") {
		t.Errorf("non-customization file: %v", err)
	}
}

func TestInterpretBuiltinWithoutFilename(t *testing.T) {
	dir := t.TempDir()
	helmRelease := filepath.Join(dir, "helmrelease.json")
	if err := os.WriteFile(helmRelease, []byte(`{"apiVersion":"helm.toolkit.fluxcd.io/v2beta1","kind":"HelmRelease",
"metadata":{"name":"podinfo","namespace":"apps"},
"status":{"conditions":[{"type":"Ready","status":"True","reason":"ReconciliationSucceeded","message":"Release reconciliation succeeded"}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runInterpret(t, "", "--operation", "InterpretHealth", "--observed-file", helmRelease, "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 1 || got["healthy"] != true {
		t.Fatalf("want {\"healthy\": true}, got %s (%v)", out, err)
	}

	// HelmRelease defines no InterpretReplica: no layer answers.
	if _, err := runInterpret(t, "", "--operation", "InterpretReplica", "--desired-file", helmRelease); err == nil || !strings.Contains(err.Error(), "no interpreter hook") {
		t.Errorf("InterpretReplica of a HelmRelease: %v", err)
	}

	// A kind the built-in layer does not cover goes to the native layer.
	_, desired, _ := files(t)
	deployment := filepath.Join(dir, "deployment.yaml")
	if err := os.WriteFile(deployment, []byte(strings.Replace(strings.Replace(workload, "workload.example.io/v1alpha1", "apps/v1", 1), "Workload", "Deployment", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = runInterpret(t, "", "--operation", "InterpretReplica", "--desired-file", deployment, "-o", "json")
	if err != nil || !strings.Contains(out, `"replica": 3`) || !strings.Contains(out, `"cpu": "100m"`) {
		t.Errorf("native InterpretReplica of a Deployment: %v\n%s", err, out)
	}
	// The sample Workload kind has no interpreter without its customization.
	if _, err := runInterpret(t, "", "--operation", "InterpretReplica", "--desired-file", desired); err == nil {
		t.Error("a Workload was interpreted without its customization")
	}
}

func TestInterpretListBuiltin(t *testing.T) {
	out, err := runInterpret(t, "", "--list-builtin")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 28 {
		t.Fatalf("want a header and 27 kinds, got %d lines:\n%s", len(lines), out)
	}
	// The row of Argo Workflow, in rule order: Retain, InterpretReplica,
	// InterpretComponent, ReviseReplica, InterpretStatus, AggregateStatus,
	// InterpretHealth, InterpretDependency.
	var workflow string
	for _, l := range lines {
		if strings.Contains(l, " Workflow ") {
			workflow = strings.Join(strings.Fields(l), " ")
		}
	}
	if workflow != "argoproj.io/v1alpha1 Workflow x x - x - - x x" {
		t.Errorf("Workflow row %q", workflow)
	}
	if _, err := runInterpret(t, "", "--list-builtin", "-f", "x.yaml"); err == nil {
		t.Error("--list-builtin accepted -f")
	}
}

func TestInterpretCheckBuiltin(t *testing.T) {
	out, err := runInterpret(t, "", "--check")
	if err != nil {
		t.Fatalf("check of the built-in interpreters failed: %v\n%s", err, out)
	}
	if got := strings.Count(out, "SOURCE: declarative-configuration-"); got != 27 {
		t.Errorf("checked %d built-in customizations, want 27", got)
	}
}

// customizationFile writes a Workload customization with the given rules
// (YAML, indented under customizations:) and returns its path.
func customizationFile(t *testing.T, rules string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "c.yaml")
	doc := `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: hostile}
spec:
  target: {apiVersion: workload.example.io/v1alpha1, kind: Workload}
  customizations:
` + rules
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// The command refuses what the controller's facade refuses, with the same
// error: it used to print "replica": -2147483648 for 0/0 and 2 for 2.5.
func TestInterpretAppliesControllerChecks(t *testing.T) {
	_, desired, _ := files(t)
	script := func(entry, body string) string {
		return "    " + entry + ":\n      luaScript: |\n" + "        " + strings.ReplaceAll(body, "\n", "\n        ") + "\n"
	}
	replicas := func(ret string) string {
		return script("replicaResource", "function GetReplicas(obj)\n  return "+ret+"\nend")
	}
	deps := func(body string) string {
		return script("dependencyInterpretation", "function GetDependencies(obj)\n  "+body+"\nend")
	}
	revise := script("replicaRevision", "function ReviseReplica(obj, r)\n  obj.metadata.namespace = \"kube-system\"\n  return obj\nend")
	const prefix = "customization InterpretReplica of workload.example.io/v1alpha1/Workload default/nginx: "
	cases := []struct {
		name, rules, op string
		want            []string
	}{
		{"NaN", replicas("0/0"), "InterpretReplica", []string{prefix, "returned replicas NaN: replicas must be an integer between 0 and 2147483647"}},
		{"infinity", replicas("1/0"), "InterpretReplica", []string{prefix, "returned replicas +Inf: replicas must be an integer"}},
		{"fraction", replicas("2.5"), "InterpretReplica", []string{prefix, "returned replicas 2.5: replicas must be an integer"}},
		{"negative request", replicas(`1, {resourceRequest = {cpu = "-100"}}`), "InterpretReplica", []string{prefix, "answered resourceRequest.cpu is -100: resource requests must not be negative"}},
		{"identity", revise, "ReviseReplica", []string{`metadata.namespace is "kube-system", want "default"`}},
		{"too many dependencies", deps(`local t = {} for i = 1, 5000 do t[i] = {kind = "ConfigMap"} end return t`), "InterpretDependency",
			[]string{"invalid dependencies: 5000 references: an answer may name at most 512 dependencies"}},
		{"other namespace", deps(`return {{apiVersion = "v1", kind = "Secret", namespace = "kube-system", name = "admin"}}`), "InterpretDependency",
			[]string{`dependencies[0] (Secret admin) is in namespace "kube-system", not "default"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := customizationFile(t, c.rules)
			out, err := runInterpret(t, "", "-f", file, "--operation", c.op, "--desired-file", desired, "--desired-replica", "2", "-o", "json")
			if err == nil {
				t.Fatalf("accepted:\n%s", out)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			// The controller's facade gives the same error.
			want := controllerError(t, file, c.op, desired)
			if err.Error() != "execute "+c.op+": "+want.Error() {
				t.Errorf("command error %q, controller error %q", err, want)
			}
		})
	}
}

// controllerError runs op as the controller does (the customization layer
// behind the facade) and returns its error.
func controllerError(t *testing.T, file, op, desired string) error {
	t.Helper()
	rics, err := loadCustomizations([]string{file})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := loadObject(desired)
	if err != nil {
		t.Fatal(err)
	}
	l := customization.New(customization.Options{})
	l.LoadConfig(rics)
	ri := resourceinterpreter.New(l, native.New())
	ctx := context.Background()
	switch op {
	case "InterpretReplica":
		_, _, err = ri.GetReplicas(ctx, obj)
	case "ReviseReplica":
		_, err = ri.ReviseReplica(ctx, obj, 2)
	case "InterpretDependency":
		_, err = ri.GetDependencies(ctx, obj)
	}
	if err == nil {
		t.Fatalf("the controller accepts %s", op)
	}
	return err
}

// The command words a missing or doubled object in its flags' terms (the
// interpreter's own errors name no flag), as Karmada's command does.
func TestInterpretMissingObjectsNameFlags(t *testing.T) {
	sample, desired, _ := files(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-f", sample, "--operation", "InterpretReplica"}, "desired-file, observed-file options are not set"},
		{[]string{"-f", sample, "--operation", "InterpretReplica", "--desired-file", desired, "--observed-file", desired}, "you can not specify both desired-file and observed-file options"},
		{[]string{"-f", sample, "--operation", "Retain", "--observed-file", desired}, "desired, desired-file options are not set"},
		{[]string{"-f", sample, "--operation", "Retain", "--desired-file", desired}, "observed, observed-file options are not set"},
	} {
		if _, err := runInterpret(t, "", c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.args, err, c.want)
		}
	}
}
