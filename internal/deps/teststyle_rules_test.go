package deps

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// gotBeforeWant finds a hand-written message that reports what a test got
// before what it wanted ("x: got A, want B").
var gotBeforeWant = regexp.MustCompile(`\bgot .*\bwant\b`)

// TestTestMessagesAndContexts enforces two rules of docs/contributing.md's test style
// in the root module's tests. A hand-written t.Errorf or t.Fatalf message
// says what it wants first ("x: want A, got B"), in the order of a diff's
// "-want, +got". And a test's context: a Test function, and each of its
// t.Run subtests, takes its context from t.Context(), which is canceled
// when the test ends, instead of context.Background(). Calls in a go
// statement, a defer, a t.Cleanup function or another function literal may
// run after the test, so they are not checked (a cleanup that talks to the
// API server takes context.WithoutCancel or a background context), nor are
// TestMain, benchmarks, examples and helpers. A call that must stay is
// marked with a "// background:" comment on its line that says why.
func TestTestMessagesAndContexts(t *testing.T) {
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
			if path == root {
				return nil
			}
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		checked++
		rel, _ := filepath.Rel(root, path)
		marked := map[int]bool{}
		for _, g := range f.Comments {
			for _, c := range g.List {
				if strings.HasPrefix(c.Text, "// background:") {
					marked[fset.Position(c.Pos()).Line] = true
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			lit, isLit := call.Args[0].(*ast.BasicLit)
			if !ok || (sel.Sel.Name != "Errorf" && sel.Sel.Name != "Fatalf") || !isLit || lit.Kind != token.STRING {
				return true
			}
			if msg, err := strconv.Unquote(lit.Value); err == nil && gotBeforeWant.MatchString(msg) {
				t.Errorf("%s:%d: %q: say first what the test wants, then what it got: a diff reads -want, +got", rel, fset.Position(lit.Pos()).Line, msg)
			}
			return true
		})
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Test") || fd.Name.Name == "TestMain" || testingT(fd.Type) == "" {
				continue
			}
			for _, call := range backgroundCalls(fd.Body) {
				line := fset.Position(call.Pos()).Line
				if !marked[line] {
					t.Errorf("%s:%d: context.Background() in %s: use t.Context() (context.WithoutCancel(t.Context()) for a context used after the test), or say why not in a \"// background:\" comment", rel, line, fd.Name.Name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d test files; the walk missed the repository", checked)
	}
}

// testingT returns the name of ft's *testing.T parameter, or "".
func testingT(ft *ast.FuncType) string {
	for _, p := range ft.Params.List {
		star, ok := p.Type.(*ast.StarExpr)
		if !ok || len(p.Names) != 1 {
			continue
		}
		if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "T" {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "testing" {
				return p.Names[0].Name
			}
		}
	}
	return ""
}

// backgroundCalls returns the context.Background() calls that run in body
// while its test runs: not in go statements, defers, t.Cleanup functions or
// function literals, except the subtests of t.Run, whose bodies it enters.
func backgroundCalls(body *ast.BlockStmt) []*ast.CallExpr {
	var out []*ast.CallExpr
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt, *ast.DeferStmt:
			return false
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch x, _ := sel.X.(*ast.Ident); {
			case sel.Sel.Name == "Cleanup":
				return false
			case sel.Sel.Name == "Run" && len(n.Args) == 2:
				if lit, ok := n.Args[1].(*ast.FuncLit); ok && testingT(lit.Type) != "" {
					out = append(out, backgroundCalls(lit.Body)...)
					return false
				}
			case sel.Sel.Name == "Background" && x != nil && x.Name == "context" && len(n.Args) == 0:
				out = append(out, n)
			}
		}
		return true
	})
	return out
}
