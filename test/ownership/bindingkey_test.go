package ownership

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneBindingOfTemplateLookup fails when production code derives the
// name of a template's binding itself instead of asking
// internal/shared/templatebinding (Key, Get), the one owner of what makes a binding a
// template's binding.
func TestOneBindingOfTemplateLookup(t *testing.T) {
	root := repoRoot(t)
	allowed := map[string]bool{
		filepath.Join(root, "internal", "shared", "templatebinding"): true,
		filepath.Join(root, "internal", "shared", "names"):           true, // defines the algorithm
	}
	for _, dir := range []string{"internal", "pkg", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || allowed[filepath.Dir(path)] {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.Contains(string(src), "names.BindingName(") {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s names a template's binding itself; use templatebinding.Key or Get", rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
