package names

import "testing"

// The expected values are the spec's verified examples (Appendix A).
func TestBindingName(t *testing.T) {
	cases := []struct{ kind, name, want string }{
		{"Deployment", "nginx", "nginx-deployment"},
		{"ClusterRole", "system:aggregate-to-edit", "system.aggregate-to-edit-clusterrole"},
	}
	for _, c := range cases {
		if got := BindingName(c.kind, c.name); got != c.want {
			t.Errorf("BindingName(%s, %s) = %s, want %s", c.kind, c.name, got, c.want)
		}
	}
}

func TestWorkName(t *testing.T) {
	cases := []struct{ kind, ns, name, want string }{
		{"Deployment", "default", "nginx", "nginx-687f7fb96f"},
		{"ClusterRole", "", "system:aggregate-to-edit", "system.aggregate-to-edit-7c5f844fc5"},
		{"Namespace", "", "demo", "demo-6654f4c4f6"},
	}
	for _, c := range cases {
		if got := WorkName(c.kind, c.name, c.ns); got != c.want {
			t.Errorf("WorkName(%s, %s/%s) = %s, want %s", c.kind, c.ns, c.name, got, c.want)
		}
	}
}

func TestDependedByLabelKey(t *testing.T) {
	if got, want := DependedByLabelKey("default", "nginx-deployment"), "resourcebinding.karmada.io/depended-by-5bdc5c4dcf"; got != want {
		t.Errorf("DependedByLabelKey = %s, want %s", got, want)
	}
}

func TestExecutionSpace(t *testing.T) {
	ns := ExecutionSpace("member1")
	if ns != "karmada-es-member1" {
		t.Fatalf("ExecutionSpace = %s", ns)
	}
	if c, err := ClusterOfExecutionSpace(ns); err != nil || c != "member1" {
		t.Fatalf("ClusterOfExecutionSpace(%s) = %s, %v", ns, c, err)
	}
	if _, err := ClusterOfExecutionSpace("default"); err == nil {
		t.Fatal("ClusterOfExecutionSpace(default) succeeded, want error")
	}
}
