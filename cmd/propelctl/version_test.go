package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/propel-mc/propel/internal/app/version"
)

// version --client prints propelctl's version and contacts nothing.
func TestVersionClient(t *testing.T) {
	out, _, err := execute(t, "version", "--client", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var v versions
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if v.ClientVersion == nil || v.ClientVersion.GitVersion != version.Get() || v.ServerVersion != nil {
		t.Fatalf("got %s", out)
	}
}

// A control plane that does not answer is reported on stderr; the client
// version is printed and the command succeeds.
func TestVersionUnreachableControlPlane(t *testing.T) {
	kubeconfig := writeKubeconfig(t, twoContexts)
	out, errOut, err := execute(t, "version", "--kubeconfig", kubeconfig, "--request-timeout", "2s")
	if err != nil {
		t.Fatal(err)
	}
	if out != "Client Version: "+version.Get()+"\n" {
		t.Errorf("stdout %q", out)
	}
	if !strings.Contains(errOut, "control plane version:") {
		t.Errorf("stderr %q", errOut)
	}
}
