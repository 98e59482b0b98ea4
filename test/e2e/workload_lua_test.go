package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	"github.com/propel-mc/propel/test/harness"
)

// TestWorkloadThroughLuaCustomization is seed scenario (c): the Workload
// kind interpreted by a ResourceInterpreterCustomization in Lua instead of
// the webhook, with the same expected results as scenario (b).
func TestWorkloadThroughLuaCustomization(t *testing.T) {
	membersReady(t)
	installWorkloadCRD(t)
	data, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "config", "samples", "workload", "customization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ric := &configv1alpha1.ResourceInterpreterCustomization{}
	if err := yaml.UnmarshalStrict(data, ric); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Create(context.Background(), ric); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), ric) })
	runWorkloadScenario(t, "nginx-lua")
}
