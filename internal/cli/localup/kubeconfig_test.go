package localup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/propel-mc/propel/config/crds"
	"github.com/propel-mc/propel/internal/cli/localenv"
)

func fakeAPIServer(name, url string) *localenv.APIServer {
	return &localenv.APIServer{
		Name: name, URL: url, CAPEM: []byte("ca of " + name),
		Config: &rest.Config{Host: url, TLSClientConfig: rest.TLSClientConfig{CertData: []byte("cert of " + name), KeyData: []byte("key of " + name)}},
	}
}

// TestSuiteKubeconfigs: the files Karmada's suite reads resolve, context by
// context, to the right API server with its admin credentials:
// karmada-apiserver and karmada-host in $KUBECONFIG, one context per
// member (named as the member) in the members file.
func TestSuiteKubeconfigs(t *testing.T) {
	dir := t.TempDir()
	cp := fakeAPIServer("karmada", "https://127.0.0.1:6443")
	members := []*localenv.APIServer{fakeAPIServer("member1", "https://127.0.0.1:7001"), fakeAPIServer("member2", "https://127.0.0.1:7002"), fakeAPIServer("member3", "https://127.0.0.1:7003")}
	suite, membersPath, err := writeSuiteKubeconfigs(dir, cp, members)
	if err != nil {
		t.Fatal(err)
	}
	if suite != filepath.Join(dir, "karmada.config") || membersPath != filepath.Join(dir, "members.config") {
		t.Errorf("paths %s, %s", suite, membersPath)
	}
	check := func(path, context string, want *localenv.APIServer) {
		t.Helper()
		cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
			&clientcmd.ClientConfigLoadingRules{ExplicitPath: path},
			&clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
		if err != nil {
			t.Fatalf("%s context %s: %v", path, context, err)
		}
		if cfg.Host != want.URL || string(cfg.CAData) != string(want.CAPEM) || string(cfg.CertData) != string(want.Config.CertData) || string(cfg.KeyData) != string(want.Config.KeyData) {
			t.Errorf("%s context %s: host %s, ca %q, cert %q; want %s's", path, context, cfg.Host, cfg.CAData, cfg.CertData, want.Name)
		}
	}
	check(suite, "karmada-apiserver", cp)
	check(suite, "karmada-host", cp)
	check(suite, "", cp) // current context: the control plane
	for _, m := range members {
		check(membersPath, m.Name, m)
	}
	data, err := os.ReadFile(membersPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "karmada-apiserver") {
		t.Error("the members file names the control plane")
	}
}

// TestPresentKarmadaComponents: --karmada-bin-dir runs the components found
// there; a missing directory, or one with none of them, is an error naming
// the directory; karmada-aggregated-apiserver takes the Cluster kind from
// the CRD.
func TestPresentKarmadaComponents(t *testing.T) {
	if got, err := presentKarmadaComponents(""); err != nil || got != nil {
		t.Errorf("no dir: %v, %v", got, err)
	}
	dir := t.TempDir()
	if _, err := presentKarmadaComponents(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing dir: %v", err)
	}
	if _, err := presentKarmadaComponents(dir); err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "karmada-webhook") {
		t.Errorf("empty dir: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "karmada-webhook"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "karmada-search"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := presentKarmadaComponents(dir)
	if err != nil || len(got) != 1 || got[0].name != "karmada-webhook" {
		t.Fatalf("webhook only: %v, %v", got, err)
	}
	all, err := crds.All()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(withoutClusterCRD(all, got)); n != len(all) {
		t.Errorf("without karmada-aggregated-apiserver %d of %d CRDs are installed", n, len(all))
	}
	if err := os.WriteFile(filepath.Join(dir, "karmada-aggregated-apiserver"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err = presentKarmadaComponents(dir); err != nil || len(got) != 2 {
		t.Fatalf("with karmada-aggregated-apiserver: %v, %v", got, err)
	}
	left := withoutClusterCRD(all, got)
	if len(left) != len(all)-1 {
		t.Errorf("with karmada-aggregated-apiserver %d of %d CRDs are installed, want all but %s", len(left), len(all), clusterCRDName)
	}
	for _, crd := range left {
		if crd.Name == clusterCRDName {
			t.Errorf("%s is still installed", clusterCRDName)
		}
	}
}
