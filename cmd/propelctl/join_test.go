package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/cli/join"
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

func TestPlanOrRun(t *testing.T) {
	plan := &join.Plan{Member: []client.Object{&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sa"}}}}
	for _, dryRun := range []bool{true, false} {
		var out bytes.Buffer
		cmd := &cobra.Command{}
		cmd.SetOut(&out)
		ran := false
		err := planOrRun(cmd, dryRun, "would create", func() (*join.Plan, error) { return plan, nil },
			func() error { ran = true; return nil }, "done")
		if err != nil {
			t.Fatal(err)
		}
		want := "done\n"
		if dryRun {
			want = "member: would create ServiceAccount ns/sa\n"
		}
		if out.String() != want || ran == dryRun {
			t.Errorf("dry run %v: printed %q (want %q), ran %v", dryRun, out.String(), want, ran)
		}
	}
	boom := errors.New("boom")
	cmd := &cobra.Command{}
	var out bytes.Buffer
	cmd.SetOut(&out)
	if err := planOrRun(cmd, false, "v", nil, func() error { return boom }, "done"); !errors.Is(err, boom) || out.Len() != 0 {
		t.Errorf("failed run: error %v, printed %q", err, out.String())
	}
	if err := planOrRun(cmd, true, "v", func() (*join.Plan, error) { return nil, boom }, nil, "done"); !errors.Is(err, boom) {
		t.Errorf("failed plan: error %v", err)
	}
}
