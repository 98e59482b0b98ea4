package controllermanager

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

func TestApplySoftMemoryLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1)) // restore
	t.Setenv("GOMEMLIMIT", "")
	dir := t.TempDir()
	defer func(old string) { cgroupMemoryMax = old }(cgroupMemoryMax)

	cgroupMemoryMax = filepath.Join(dir, "memory.max")
	if err := os.WriteFile(cgroupMemoryMax, []byte("1000000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, from, err := applySoftMemoryLimit("256Mi"); err != nil || got != 256<<20 || from != "--soft-memory-limit" {
		t.Errorf("flag: %d from %q (%v)", got, from, err)
	}
	if got, _, err := applySoftMemoryLimit(""); err != nil || got != 900000000 || debug.SetMemoryLimit(-1) != 900000000 {
		t.Errorf("cgroup limit: %d (%v), want 90%% of 1e9", got, err)
	}
	if err := os.WriteFile(cgroupMemoryMax, []byte("max\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _, err := applySoftMemoryLimit(""); err != nil || got != 0 {
		t.Errorf("unlimited cgroup: %d (%v), want none", got, err)
	}
	if _, _, err := applySoftMemoryLimit("lots"); err == nil {
		t.Error("a malformed quantity must be rejected")
	}
}
