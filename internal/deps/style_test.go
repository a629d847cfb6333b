package deps

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTestStyle enforces the part of docs/contributing.md's test style that
// a program can check, in every _test.go file of the repository (nested
// modules included): cmp.Diff takes the wanted value first, and a diff is
// reported as "-want, +got", so that every failure reads the same way.
func TestTestStyle(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, filepath.Join("internal", "deps", "style_test.go")) {
			return nil // this file spells the reversed forms it looks for
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		checked++
		rel, _ := filepath.Rel(root, path)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Diff" || len(n.Args) < 2 {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "cmp" {
					return true
				}
				if name := lastName(n.Args[0]); strings.HasPrefix(strings.ToLower(name), "got") || name == "actual" {
					t.Errorf("%s:%d: cmp.Diff(%s, ...): the wanted value goes first, so that the diff reads -want, +got", rel, fset.Position(n.Pos()).Line, name)
				}
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(n.Value)
				if err != nil {
					return true
				}
				for _, reversed := range []string{"-got, +want", "-got +want", "+want, -got", "(-got", "(+want"} {
					if strings.Contains(s, reversed) {
						t.Errorf("%s:%d: %q: a diff is reported as -want, +got", rel, fset.Position(n.Pos()).Line, reversed)
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
	if checked < 100 {
		t.Fatalf("checked %d test files; the walk missed the repository", checked)
	}
}

// lastName is the name an expression ends with: got for got or tc.got,
// Items for got.Items (a field of what a test got may be what it wants of
// something else).
func lastName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}
