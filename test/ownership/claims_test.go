package ownership

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// claimKeys are the names constants of the policy claim labels and
// annotations (propagationpolicy.karmada.io/*,
// clusterpropagationpolicy.karmada.io/*).
var claimKeys = map[string]bool{
	"PropagationPolicyPermanentIDLabel": true, "PropagationPolicyNamespaceAnnotation": true, "PropagationPolicyNameAnnotation": true,
	"ClusterPropagationPolicyPermanentIDLabel": true, "ClusterPropagationPolicyNameAnnotation": true,
}

// TestClaimsRemovedOnlyByPolicyIndex fails when production code outside
// internal/pipeline/detector/policyindex, the owner of the claim, deletes a claim key
// from a map or lists claim keys (the way code removes or copies a set of
// keys): claims are removed through policyindex.RemoveClaim and listed
// through policyindex.ClaimLabelKeys and ClaimAnnotationKeys. Reading
// one key (labels[names.X]) is allowed.
func TestClaimsRemovedOnlyByPolicyIndex(t *testing.T) {
	root := repoRoot(t)
	owner := filepath.Join(root, "internal", "pipeline", "detector", "policyindex")
	fset := token.NewFileSet()
	for _, dir := range []string{"internal", "pkg", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == owner {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			ast.Inspect(f, func(n ast.Node) bool {
				var args []ast.Expr
				what := ""
				switch n := n.(type) {
				case *ast.CallExpr:
					if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "delete" {
						args, what = n.Args, "deletes"
					}
				case *ast.CompositeLit:
					args, what = n.Elts, "lists"
				}
				for _, a := range args {
					if sel, ok := a.(*ast.SelectorExpr); ok && claimKeys[sel.Sel.Name] {
						if x, ok := sel.X.(*ast.Ident); ok && x.Name == "names" {
							t.Errorf("%s: %s the claim key names.%s; use internal/pipeline/detector/policyindex (RemoveClaim, ClaimLabelKeys, ClaimAnnotationKeys)",
								fmt.Sprintf("%s:%d", rel, fset.Position(a.Pos()).Line), what, sel.Sel.Name)
						}
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
