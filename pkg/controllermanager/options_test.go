package controllermanager

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/propel-mc/propel/pkg/features"
)

func parseFlags(args ...string) (*Options, error) {
	o := NewOptions()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.SetOutput(&strings.Builder{})
	o.AddFlags(fs)
	return o, fs.Parse(args)
}

func TestFeatureGatesFlag(t *testing.T) {
	o, err := parseFlags()
	if err != nil {
		t.Fatal(err)
	}
	if o.FeatureGates.Enabled(features.PropagationPolicyPreemption) || !o.FeatureGates.Enabled(features.PropagateDeps) {
		t.Fatalf("defaults: %s", o.FeatureGates)
	}
	o, err = parseFlags("--feature-gates=PropagationPolicyPreemption=true,PropagateDeps=false")
	if err != nil {
		t.Fatal(err)
	}
	if !o.FeatureGates.Enabled(features.PropagationPolicyPreemption) || o.FeatureGates.Enabled(features.PropagateDeps) {
		t.Fatalf("after --feature-gates: %s", o.FeatureGates)
	}
	_, err = parseFlags("--feature-gates=PropagationPolicyPreemption=true,Failovr=true")
	if err == nil || !strings.Contains(err.Error(), `"Failovr"`) {
		t.Fatalf("unknown gate: error %v, want one naming Failovr", err)
	}
}
