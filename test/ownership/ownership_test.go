// Package ownership keeps the ownership table of docs/architecture.md
// true: every place production code writes an API object must be named by
// a row of the table.
package ownership

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// writeMethods are the methods that write API objects: controller-runtime's
// client and sub-resource writers and its CreateOrUpdate/CreateOrPatch,
// client-go's typed and dynamic clients. A call counts when its first
// argument is a context.
var writeMethods = map[string]bool{
	"Create": true, "Update": true, "Patch": true, "UpdateStatus": true, "Apply": true, "ApplyStatus": true,
	"CreateOrUpdate": true, "CreateOrPatch": true,
}

// notWrites are calls the syntactic scan takes for writes but that write
// nothing, by package and call, with the reason. An entry that no longer
// matches a call fails the test, so that the list stays true.
var notWrites = map[string]string{
	"internal/shared/workcluster mapFn.Create": "forwards a controller-runtime create event to an event handler",
	"internal/shared/workcluster mapFn.Update": "forwards a controller-runtime update event to an event handler",
	"internal/app/managerbase a.tokens.Create": "creates a TokenReview, a question to the API server that stores nothing (the secure metrics filter)",
	"internal/app/managerbase a.access.Create": "creates a SubjectAccessReview, a question to the API server that stores nothing (the secure metrics filter)",
}

// writeSite is one call that writes an API object.
type writeSite struct {
	pos string // file:line, relative to the repository
	dir string // the package directory, e.g. internal/scheduling/scheduler
	// status is true for a write of the status sub-resource.
	status bool
	call   string // the call as written, for messages
}

// repoRoot is the repository root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// writeSites lists the write calls of every non-test Go file below dirs.
func writeSites(t *testing.T, root string, dirs ...string) []writeSite {
	t.Helper()
	var sites []writeSite
	fset := token.NewFileSet()
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" || d.Name() == "apis" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || !writeMethods[sel.Sel.Name] || len(call.Args) < 2 || !isContext(call.Args[0]) {
					return true
				}
				p := fset.Position(call.Pos())
				sites = append(sites, writeSite{
					pos:    fmt.Sprintf("%s:%d", filepath.ToSlash(rel), p.Line),
					dir:    filepath.ToSlash(filepath.Dir(rel)),
					status: strings.HasSuffix(sel.Sel.Name, "Status") || isStatusWriter(sel.X),
					call:   exprString(fset, call.Fun),
				})
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return sites
}

// isContext reports whether e is a context argument: ctx (or any name
// ending in ctx/Ctx) or context.Background()/TODO().
func isContext(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return strings.HasSuffix(strings.ToLower(e.Name), "ctx")
	case *ast.CallExpr:
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "context" {
				return true
			}
		}
	}
	return false
}

// isStatusWriter reports whether x is c.Status() or c.SubResource("status").
func isStatusWriter(x ast.Expr) bool {
	call, ok := x.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if sel.Sel.Name == "Status" {
		return true
	}
	if sel.Sel.Name == "SubResource" && len(call.Args) == 1 {
		lit, ok := call.Args[0].(*ast.BasicLit)
		return ok && lit.Value == `"status"`
	}
	return false
}

func exprString(fset *token.FileSet, e ast.Expr) string {
	var b strings.Builder
	if err := formatNode(&b, fset, e); err != nil {
		return fmt.Sprintf("%T", e)
	}
	return b.String()
}

// ownershipRow is one row of the table: what is written and the packages
// that write it.
type ownershipRow struct {
	written string
	owners  []string
}

var packagePath = regexp.MustCompile("`((?:internal|pkg|cmd)/[a-z0-9/_]+)`")

// ownershipTable reads the rows of the table under the heading in
// docs/architecture.md.
func ownershipTable(t *testing.T, root, heading string) []ownershipRow {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("docs/architecture.md has no %q", heading)
	}
	var rows []ownershipRow
	inTable := false
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 2 || strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
			continue
		}
		row := ownershipRow{written: cells[0]}
		for _, m := range packagePath.FindAllStringSubmatch(strings.Join(cells[1:], "|"), -1) {
			row.owners = append(row.owners, m[1])
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		t.Fatalf("docs/architecture.md: no table under %q", heading)
	}
	return rows
}

// covers reports whether row names dir (or a package above it) as an owner
// and, for a status write, names a status field.
func (row ownershipRow) covers(s writeSite) bool {
	if s.status && !strings.Contains(row.written, "status") {
		return false
	}
	for _, o := range row.owners {
		if s.dir == o || strings.HasPrefix(s.dir, o+"/") {
			return true
		}
	}
	return false
}

func uncovered(sites []writeSite, rows []ownershipRow) []string {
	var out []string
	for _, s := range sites {
		covered := false
		for _, row := range rows {
			if row.covers(s) {
				covered = true
				break
			}
		}
		if !covered {
			kind := "write"
			if s.status {
				kind = "status write"
			}
			out = append(out, fmt.Sprintf("%s: %s %s (package %s) has no row", s.pos, kind, s.call, s.dir))
		}
	}
	sort.Strings(out)
	return out
}

const tableHeading = "## Field ownership"

// TestEveryWriterHasAnOwnershipRow fails when production code writes an
// API object from a package the ownership table does not name (as the
// owner of a status field, for a status write).
func TestEveryWriterHasAnOwnershipRow(t *testing.T) {
	root := repoRoot(t)
	sites := writeSites(t, root, "internal", "pkg", "cmd")
	if len(sites) < 40 {
		t.Fatalf("found only %d write sites: the scan is broken", len(sites))
	}
	var writes []writeSite
	matched := map[string]bool{}
	for _, s := range sites {
		if key := s.dir + " " + s.call; notWrites[key] != "" {
			matched[key] = true
			continue
		}
		writes = append(writes, s)
	}
	for key := range notWrites {
		if !matched[key] {
			t.Errorf("notWrites: %q matches no call any more; remove it", key)
		}
	}
	for _, msg := range uncovered(writes, ownershipTable(t, root, tableHeading)) {
		t.Error(msg)
	}
}

func formatNode(b *strings.Builder, fset *token.FileSet, e ast.Expr) error {
	return printer.Fprint(b, fset, e)
}
