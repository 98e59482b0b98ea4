package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
)

const twoContexts = `apiVersion: v1
kind: Config
current-context: team
clusters:
- name: cp
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: admin
  user: {token: t}
contexts:
- name: team
  context: {cluster: cp, user: admin, namespace: team-a}
- name: bare
  context: {cluster: cp, user: admin}
`

func writeKubeconfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The namespace is -n, else the context's, else default; --karmada-context
// selects the context as --context does.
func TestNamespaceFromContext(t *testing.T) {
	kubeconfig := writeKubeconfig(t, twoContexts)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "team-a"},
		{[]string{"-n", "prod"}, "prod"},
		{[]string{"--context", "bare"}, "default"},
		{[]string{"--karmada-context", "bare"}, "default"},
		{[]string{"--context", "team", "--karmada-context", "team"}, "team-a"},
	} {
		cp := newControlPlaneFlags()
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		cp.addFlags(fs)
		if err := fs.Parse(append([]string{"--kubeconfig", kubeconfig}, tc.args...)); err != nil {
			t.Fatal(err)
		}
		ns, err := cp.namespace()
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if ns != tc.want {
			t.Errorf("%v: namespace %q, want %q", tc.args, ns, tc.want)
		}
	}
}
