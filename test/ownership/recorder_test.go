package ownership

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneEventRecorderConstructor fails when production code asks the
// manager for an event recorder anywhere but internal/app/controllermanager/recorder,
// the one constructor (it carries the one lint suppression for the core/v1
// recorder Karmada's Events need).
func TestOneEventRecorderConstructor(t *testing.T) {
	root := repoRoot(t)
	owner := filepath.Join(root, "internal", "app", "controllermanager", "recorder")
	for _, dir := range []string{"internal", "pkg", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == owner {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.Contains(string(src), ".GetEventRecorderFor(") {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s builds its own event recorder; use recorder.For", rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
