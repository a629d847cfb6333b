package readme

import (
	"go/ast"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// isGo reports whether code is Go: it parses as declarations or as
// statements, or it declares a variable with := (a fragment, or code that
// does not compile, is still Go to be checked).
func isGo(code string) bool {
	if strings.Contains(code, ":=") {
		return true
	}
	fset := token.NewFileSet()
	if _, err := parser.ParseFile(fset, "", "package p\n"+code, 0); err == nil {
		return true
	}
	_, err := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+code+"\n}\n", 0)
	return err == nil
}

// codeBlocks returns the code blocks (indented in the comment) of a package
// doc comment.
func codeBlocks(doc *ast.CommentGroup) []string {
	var p comment.Parser
	var out []string
	for _, b := range p.Parse(doc.Text()).Content {
		if c, ok := b.(*comment.Code); ok {
			out = append(out, c.Text)
		}
	}
	return out
}

// packageDir is one directory's package docs and the examples its tests hold.
type packageDir struct {
	docs     map[string]*ast.CommentGroup // by file, from the module root
	examples []string                     // normalized text of each example function
}

// readPackageDirs parses every Go file under the module root, skipping
// hidden folders, testdata and bin.
func readPackageDirs(t *testing.T) map[string]*packageDir {
	t.Helper()
	dirs := map[string]*packageDir{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// Internal packages are documented for the module's own
			// developers; users never see them.
			if path != root && (strings.HasPrefix(d.Name(), ".") || skipInWalk[d.Name()] || d.Name() == "internal") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		pd := dirs[dir]
		if pd == nil {
			pd = &packageDir{docs: map[string]*ast.CommentGroup{}}
			dirs[dir] = pd
		}
		name, _ := filepath.Rel(root, path)
		if !strings.HasSuffix(path, "_test.go") {
			if f.Doc != nil {
				pd.docs[filepath.ToSlash(name)] = f.Doc
			}
			return nil
		}
		exampleFile := strings.HasSuffix(path, "example_test.go")
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil || !(exampleFile || strings.HasPrefix(fd.Name.Name, "Example")) {
				continue
			}
			from := fd.Pos()
			if fd.Doc != nil {
				from = fd.Doc.Pos()
			}
			text := string(src[fset.Position(from).Offset:fset.Position(fd.End()).Offset])
			pd.examples = append(pd.examples, " "+normalize(text)+" ")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestPackageDocSnippetsMatchExamples checks that every Go code block in the
// package doc comment of a package outside internal/ is part of an example
// of that package: of an Example function of its tests, or of a function of
// a file named *example_test.go, compared with runs of white space collapsed.
// A block that is not Go (see isGo: a syntax table, YAML, a command line) is
// not checked.
func TestPackageDocSnippetsMatchExamples(t *testing.T) {
	dirs := readPackageDirs(t)
	keys := make([]string, 0, len(dirs))
	for dir := range dirs {
		keys = append(keys, dir)
	}
	sort.Strings(keys)
	checked := 0
	for _, dir := range keys {
		pd := dirs[dir]
		for file, doc := range pd.docs {
			for _, code := range codeBlocks(doc) {
				if !isGo(code) {
					continue
				}
				checked++
				want := " " + normalize(code) + " "
				found := false
				for _, ex := range pd.examples {
					if strings.Contains(ex, want) {
						found = true
						break
					}
				}
				if !found {
					first, _, _ := strings.Cut(strings.TrimSpace(code), "\n")
					t.Errorf("%s: the package doc's Go block starting %q is in no example of %s: copy it from an Example function (or a function in an *example_test.go file) of the package, or remove it:\n%s",
						file, first, filepath.ToSlash(mustRel(dir)), code)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no Go block found in any package doc")
	}
}

func mustRel(dir string) string {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return dir
	}
	return rel
}
