package features

import (
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
		{"Failover=true", `"Failover"`},
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
