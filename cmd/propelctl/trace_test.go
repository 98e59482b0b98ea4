package main

import (
	"bytes"
	"strings"
	"testing"
)

// execute runs propelctl args in-process and returns stdout and stderr.
func execute(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	root := newRootCommand()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), errOut.String(), err
}

// The argument and flag checks of trace and interpret --replay answer
// before any cluster is contacted; an unknown -o names the allowed formats.
func TestTraceAndReplayRejectBadArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"trace", "nginx"}, "want RESOURCE/NAME"},
		{[]string{"trace", "deploy/"}, "want RESOURCE/NAME"},
		{[]string{"trace", "deploy/nginx", "-o", "yaml2"}, `unknown output format "yaml2": allowed formats are text, json, yaml`},
		{[]string{"trace", "deploy/nginx", "-o", "wide"}, `unknown output format "wide"`},
		{[]string{"trace", "deploy/nginx", "-o", "jsonpath={.template"}, "unclosed action"},
		{[]string{"explain", "deploy/nginx", "-o", "yaml2"}, "unknown output format"},
		{[]string{"interpret", "--replay"}, "needs -f CUSTOMIZATION.yaml or --webhook-url"},
		{[]string{"interpret", "--replay", "-f", "x.yaml", "--webhook-url", "https://127.0.0.1:1"}, "not both"},
		{[]string{"interpret", "--replay", "--webhook-url", "https://127.0.0.1:1", "--webhook-operations", "Frobnicate"}, "Frobnicate is not supported"},
		{[]string{"interpret", "--replay", "-f", "x.yaml", "-o", "yaml2"}, "allowed formats are text, json, yaml"},
		{[]string{"interpret", "--list-builtin", "-o", "name"}, "allowed formats are yaml, json"},
		{[]string{"version", "-o", "name"}, "allowed formats are json, yaml"},
	} {
		_, _, err := execute(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want %q", tc.args, err, tc.want)
		}
	}
}

// Every command that reaches the control plane takes kubectl's flags from
// the root, and karmadactl's --karmada-context.
func TestControlPlaneFlagsArePersistent(t *testing.T) {
	root := newRootCommand()
	for _, name := range []string{"trace", "explain", "interpret", "version", "join", "unjoin"} {
		cmd, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		for _, flag := range []string{"kubeconfig", "context", "karmada-context", "cluster", "user", "as", "as-group", "token", "server", "request-timeout", "namespace"} {
			f := cmd.Flags().Lookup(flag)
			if f == nil {
				f = cmd.InheritedFlags().Lookup(flag)
			}
			if f == nil || root.PersistentFlags().Lookup(flag) != f {
				t.Errorf("%s --%s: not the root's persistent flag", name, flag)
			}
		}
		if sh := cmd.InheritedFlags().ShorthandLookup("n"); sh == nil || sh.Name != "namespace" {
			t.Errorf("%s -n: want the root's --namespace", name)
		}
	}
}

// --context and --karmada-context naming different contexts is an error
// before anything is read.
func TestKarmadaContextConflictsWithContext(t *testing.T) {
	_, _, err := execute(t, "trace", "deploy/nginx", "--context", "a", "--karmada-context", "b")
	if err == nil || !strings.Contains(err.Error(), `--context "a" and --karmada-context "b" name different contexts`) {
		t.Fatalf("err %v", err)
	}
}

// Every command but join and unjoin shows examples.
func TestCommandsHaveExamples(t *testing.T) {
	for _, cmd := range newRootCommand().Commands() {
		switch cmd.Name() {
		case "join", "unjoin", "help", "completion":
			continue
		}
		if !strings.Contains(cmd.Example, "propelctl "+cmd.Name()) {
			t.Errorf("%s: no example running it", cmd.Name())
		}
	}
}

// cobra's completion command is there.
func TestCompletionCommand(t *testing.T) {
	out, _, err := execute(t, "completion", "bash")
	if err != nil || !strings.Contains(out, "__start_propelctl") {
		t.Fatalf("err %v, output %.200q", err, out)
	}
}
