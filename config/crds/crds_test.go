package crds

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestAllDecodes(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"propagationpolicies.policy.karmada.io": true, "clusterpropagationpolicies.policy.karmada.io": true,
		"overridepolicies.policy.karmada.io": true, "clusteroverridepolicies.policy.karmada.io": true,
		"resourcebindings.work.karmada.io": true, "clusterresourcebindings.work.karmada.io": true,
		"works.work.karmada.io": true, "clusters.cluster.karmada.io": true,
		"resourceinterpretercustomizations.config.karmada.io": true, "resourceinterpreterwebhookconfigurations.config.karmada.io": true,
		"workloadrebalancers.apps.karmada.io": true, "remedies.remedy.karmada.io": true,
		"clustertaintpolicies.policy.karmada.io": true,
	}
	for _, crd := range all {
		delete(want, crd.Name)
	}
	if len(want) > 0 {
		t.Fatalf("CRDs missing from config/crds: %v", want)
	}
}

// TestGeneratedFilesUpToDate regenerates deepcopy code, CRDs, the
// control-plane RBAC and the estimator's protobuf code on a copy of the
// module and fails when the committed files differ: run `make generate`
// after changing pkg/apis, an +kubebuilder:rbac marker or a .proto file.
func TestGeneratedFilesUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerating needs controller-gen from the module proxy; skipped with -short")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	tmp := t.TempDir()
	// The RBAC markers live beside the calls in every package, so the whole
	// module is copied (the role is generated from ./internal/..., ./pkg/... and ./cmd/...).
	for _, p := range []string{"go.mod", "go.sum", "hack", "internal", "pkg", "cmd", "config", "test"} {
		copyTree(t, filepath.Join(root, p), filepath.Join(tmp, p))
	}
	// The role and the estimator's generated code are removed first, so that
	// only fresh ones can match.
	for _, f := range []string{"pb/estimator.pb.go", "service/service.pb.go", "service/service_grpc.pb.go"} {
		if err := os.Remove(filepath.Join(tmp, "internal", "scheduling", "estimatorwire", f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(tmp, "config", "deploy", "karmada-apiserver", "role.yaml")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(tmp, "hack", "generate.sh"), tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generate: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(tmp, "config", "deploy", "karmada-apiserver", "role.yaml")); err != nil {
		t.Errorf("generate did not write the role: %v", err)
	}
	for _, dir := range []string{"pkg/apis", "internal/scheduling/estimatorwire", "config/crds", "config/deploy/karmada-apiserver"} {
		_ = filepath.WalkDir(filepath.Join(tmp, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasPrefix(d.Name(), "zz_generated") || strings.HasSuffix(d.Name(), ".yaml") || strings.HasSuffix(d.Name(), ".pb.go")) {
				return err
			}
			rel, _ := filepath.Rel(tmp, path)
			fresh, _ := os.ReadFile(path)
			committed, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil || !bytes.Equal(fresh, committed) {
				t.Errorf("%s is stale or missing: run `make generate`", rel)
			}
			return nil
		})
	}
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, _ := d.Info()
		return os.WriteFile(target, data, info.Mode())
	})
	if err != nil {
		t.Fatal(err)
	}
}
