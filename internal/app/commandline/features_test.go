package commandline

import (
	"slices"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	"github.com/spf13/pflag"
	"k8s.io/component-base/featuregate"
)

func TestFeatureGateDefaults(t *testing.T) {
	fg := NewFeatureGates()
	for g, spec := range karmadaGates {
		if fg.Enabled(g) != spec.Default {
			t.Errorf("%s: enabled %v, Karmada's default is %v", g, fg.Enabled(g), spec.Default)
		}
	}
	for _, g := range []featuregate.Feature{"ContextualLogging", "LoggingAlphaOptions", "LoggingBetaOptions"} {
		if _, ok := fg.GetAll()[g]; !ok {
			t.Errorf("logging gate %s is not known", g)
		}
	}
}

func TestFeatureGatesFlagSetsAndRejects(t *testing.T) {
	fg := NewFeatureGates()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	AddFeatureGatesFlag(fs, fg)
	if err := fs.Parse([]string{"--feature-gates=PropagationPolicyPreemption=true,PropagateDeps=false", "--feature-gates=PropagateDeps=true"}); err != nil {
		t.Fatal(err)
	}
	if !fg.Enabled(PropagationPolicyPreemption) || !fg.Enabled(PropagateDeps) {
		t.Errorf("a later flag overrides only what it names: PropagationPolicyPreemption %v, PropagateDeps %v", fg.Enabled(PropagationPolicyPreemption), fg.Enabled(PropagateDeps))
	}
	for _, bad := range []string{"Failover=ture", "Bogus=true", "propagationpolicypreemption=true", "PropagateDeps"} {
		if err := NewFeatureGates().Set(bad); err == nil {
			t.Errorf("--feature-gates=%s accepted", bad)
		}
	}
	usage := fs.Lookup("feature-gates").Usage
	for _, want := range []string{"PropagateDeps=true|false (BETA - default=true)", "PropagationPolicyPreemption=true|false (ALPHA - default=false)",
		"ControllerPriorityQueue=true|false (BETA - default=true) [accepted, no effect in Propel]"} {
		if !strings.Contains(usage, want) {
			t.Errorf("usage lacks %q:\n%s", want, usage)
		}
	}
	for _, implemented := range []string{"PropagateDeps=true|false (BETA - default=true) [", "WorkloadAffinity=true|false (ALPHA - default=false) [",
		"SchedulingOvercommitProtection=true|false (ALPHA - default=false) ["} {
		if strings.Contains(usage, implemented) {
			t.Errorf("usage marks an implemented gate:\n%s", usage)
		}
	}
}

func TestAllAlphaAllBeta(t *testing.T) {
	fg := NewFeatureGates()
	if err := fg.Set("PropagationPolicyPreemption=false,AllAlpha=true"); err != nil {
		t.Fatal(err)
	}
	if fg.Enabled(PropagationPolicyPreemption) || !fg.Enabled(MultiClusterService) {
		t.Errorf("AllAlpha=true: a gate set by name keeps its value (PropagationPolicyPreemption %v), the others are on (MultiClusterService %v)",
			fg.Enabled(PropagationPolicyPreemption), fg.Enabled(MultiClusterService))
	}
	fg = NewFeatureGates()
	if err := fg.Set("AllBeta=false"); err != nil {
		t.Fatal(err)
	}
	if fg.Enabled(PropagateDeps) || fg.Enabled(PropagationPolicyPreemption) {
		t.Error("AllBeta=false leaves the beta gate PropagateDeps on, or changed an alpha gate")
	}
}

func TestInactiveGates(t *testing.T) {
	fg := NewFeatureGates()
	if got := InactiveGates(fg); len(got) != 0 {
		t.Errorf("defaults report inactive gates %v", got)
	}
	if err := fg.Set("AllAlpha=true,Failover=true,PropagationPolicyPreemption=true,ControllerPriorityQueue=false"); err != nil {
		t.Fatal(err)
	}
	got := InactiveGates(fg)
	if want := []featuregate.Feature{ControllerPriorityQueue}; !slices.Equal(got, want) {
		t.Errorf("inactive %v, want %v", got, want)
	}
	var lines []string
	WarnInactiveGates(funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{}), fg)
	if len(lines) != 1 || !strings.Contains(lines[0], `"featureGate"="ControllerPriorityQueue"`) || !strings.Contains(lines[0], `"value"=false`) {
		t.Errorf("warnings %q, want one per inactive gate with its value", lines)
	}
}
