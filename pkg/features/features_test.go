package features

import (
	"slices"
	"strings"
	"testing"
)

func TestDefaults(t *testing.T) {
	for _, g := range []*Gates{nil, {}} {
		if !g.Enabled(PropagateDeps) {
			t.Error("PropagateDeps is on by default")
		}
		if g.Enabled(PropagationPolicyPreemption) {
			t.Error("PropagationPolicyPreemption is off by default")
		}
	}
}

func TestSet(t *testing.T) {
	g := &Gates{}
	if err := g.Set(" PropagationPolicyPreemption=true , PropagateDeps=false,"); err != nil {
		t.Fatal(err)
	}
	if !g.Enabled(PropagationPolicyPreemption) || g.Enabled(PropagateDeps) {
		t.Fatalf("gates after set: %s", g)
	}
	if got, want := g.String(), "PropagateDeps=false,PropagationPolicyPreemption=true"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	// A later flag overrides only what it names.
	if err := g.Set("PropagateDeps=true"); err != nil {
		t.Fatal(err)
	}
	if !g.Enabled(PropagationPolicyPreemption) || !g.Enabled(PropagateDeps) {
		t.Fatalf("gates after second set: %s", g)
	}
}

func TestSetRejects(t *testing.T) {
	cases := []struct {
		value, mention string
	}{
		{"Failover=ture", `Failover: invalid value "ture"`},
		{"AllAlpha=yes", `AllAlpha: invalid value "yes"`},
		{"PropagationPolicyPreemption=true,Bogus=false", `"Bogus"`},
		{"propagationpolicypreemption=true", `"propagationpolicypreemption"`},
		{"PropagateDeps", "PropagateDeps: missing value"},
		{"PropagateDeps=maybe", `PropagateDeps: invalid value "maybe"`},
	}
	for _, c := range cases {
		g := &Gates{}
		err := g.Set(c.value)
		if err == nil {
			t.Errorf("Set(%q) accepted", c.value)
			continue
		}
		if !strings.Contains(err.Error(), c.mention) {
			t.Errorf("Set(%q) error %q does not mention %s", c.value, err, c.mention)
		}
		if g.String() != "" {
			t.Errorf("Set(%q) applied part of an invalid value: %s", c.value, g)
		}
	}
}

func TestUsage(t *testing.T) {
	u := Usage()
	for _, want := range []string{"PropagateDeps=true|false (BETA - default=true)", "PropagationPolicyPreemption=true|false (ALPHA - default=false)"} {
		if !strings.Contains(u, want) {
			t.Errorf("usage lacks %q:\n%s", want, u)
		}
	}
}

func TestAllAlphaAllBeta(t *testing.T) {
	g := &Gates{}
	if err := g.Set("AllAlpha=true,AllBeta=true"); err != nil {
		t.Fatal(err)
	}
	for _, name := range Known() {
		if !g.Enabled(name) {
			t.Errorf("%s off with AllAlpha=true,AllBeta=true", name)
		}
	}
	// A gate set by name wins over AllAlpha, whatever the order.
	if err := g.Set("PropagationPolicyPreemption=false"); err != nil {
		t.Fatal(err)
	}
	if err := g.Set("AllAlpha=true"); err != nil {
		t.Fatal(err)
	}
	if g.Enabled(PropagationPolicyPreemption) {
		t.Error("AllAlpha overrode a gate set by name")
	}
	g = &Gates{}
	if err := g.Set("AllBeta=false"); err != nil {
		t.Fatal(err)
	}
	if g.Enabled(PropagateDeps) || !(&Gates{}).Enabled(PropagateDeps) {
		t.Error("AllBeta=false does not turn off the beta gate PropagateDeps")
	}
	if g.Enabled(PropagationPolicyPreemption) != Default(PropagationPolicyPreemption) {
		t.Error("AllBeta changed an alpha gate")
	}
}

func TestInactive(t *testing.T) {
	g := &Gates{}
	if got := g.Inactive(); len(got) != 0 {
		t.Errorf("defaults report inactive gates %v", got)
	}
	if err := g.Set("AllAlpha=true,Failover=true,PropagationPolicyPreemption=true"); err != nil {
		t.Fatal(err)
	}
	got := g.Inactive()
	for _, want := range []Gate{WorkloadAffinity} {
		if !slices.Contains(got, want) {
			t.Errorf("inactive %v lacks %s", got, want)
		}
	}
	if slices.Contains(got, PropagationPolicyPreemption) || slices.Contains(got, Failover) {
		t.Errorf("implemented gate listed inactive: %v", got)
	}
}
