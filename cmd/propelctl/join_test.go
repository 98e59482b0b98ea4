package main

import (
	"strings"
	"testing"
)

// TestJoinUnjoinFlagsAreKarmadactls checks the flags karmadactl users type
// (the control plane ones are the root's, inherited) and that both
// commands show examples.
func TestJoinUnjoinFlagsAreKarmadactls(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"join", []string{"kubeconfig", "karmada-context", "cluster-kubeconfig", "cluster-context", "cluster-namespace",
			"cluster-provider", "cluster-region", "cluster-zones", "dry-run"}},
		{"unjoin", []string{"kubeconfig", "karmada-context", "cluster-kubeconfig", "cluster-context", "cluster-namespace",
			"wait", "force", "dry-run"}},
	} {
		cmd, _, err := newRootCommand().Find([]string{tc.name})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range tc.flags {
			if cmd.Flags().Lookup(f) == nil && cmd.InheritedFlags().Lookup(f) == nil {
				t.Errorf("%s has no --%s", tc.name, f)
			}
		}
		if !strings.Contains(cmd.Example, "propelctl "+tc.name+" member1") {
			t.Errorf("%s example: %q", tc.name, cmd.Example)
		}
	}
	if got := mustFlag(t, "unjoin", "wait"); got != "1m0s" {
		t.Errorf("unjoin --wait default %s, want karmadactl's 1m0s", got)
	}
	if got := mustFlag(t, "join", "cluster-namespace"); got != "karmada-cluster" {
		t.Errorf("join --cluster-namespace default %s", got)
	}
}

func mustFlag(t *testing.T, command, flag string) string {
	t.Helper()
	cmd, _, err := newRootCommand().Find([]string{command})
	if err != nil {
		t.Fatal(err)
	}
	f := cmd.Flags().Lookup(flag)
	if f == nil {
		t.Fatalf("%s has no --%s", command, flag)
	}
	return f.DefValue
}

func TestUnjoinRefusesNonPositiveWait(t *testing.T) {
	root := newRootCommand()
	root.SetArgs([]string{"unjoin", "member1", "--wait=0s"})
	err := root.Execute()
	if err == nil || !strings.Contains(err.Error(), "--wait 0s must be a positive duration") {
		t.Fatalf("unjoin --wait=0s: %v", err)
	}
}
