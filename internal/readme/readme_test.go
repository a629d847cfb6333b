package readme

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the module root, from this package's directory.
const root = "../.."

var marker = regexp.MustCompile(`^<!-- example: (\S+)((?: \S+)+) -->$`)

// block is one ```go code block of a document.
type block struct {
	line   int    // of the opening fence
	marker string // the line before the fence
	text   string
}

func goBlocks(t *testing.T, doc string, md []byte) []block {
	t.Helper()
	var (
		blocks []block
		cur    *block
		prev   string
		body   strings.Builder
	)
	sc := bufio.NewScanner(bytes.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &block{line: n, marker: prev}
			body.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.text = body.String()
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line)
			body.WriteByte('\n')
		}
		prev = line
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s:%d: the go block is not closed", doc, cur.line)
	}
	return blocks
}

// normalize collapses each run of white space to one space.
func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// declText returns the source text that name selects in file f (see the
// package doc).
func declText(fset *token.FileSet, src []byte, f *ast.File, name string) (string, error) {
	text := func(from, to token.Pos) string {
		return string(src[fset.Position(from).Offset:fset.Position(to).Offset])
	}
	if name == "import" {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				return text(g.Pos(), g.End()), nil
			}
		}
		return "", fmt.Errorf("no import declaration")
	}
	bodyOnly := strings.HasSuffix(name, "{}")
	name = strings.TrimSuffix(name, "{}")
	recv, fn, isMethod := strings.Cut(name, ".")
	if !isMethod {
		fn, recv = recv, ""
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn || receiver(fd) != recv {
			continue
		}
		if bodyOnly {
			if fd.Body == nil {
				return "", fmt.Errorf("%s has no body", name)
			}
			return text(fd.Body.Lbrace+1, fd.Body.Rbrace), nil
		}
		from := fd.Pos()
		if fd.Doc != nil {
			from = fd.Doc.Pos()
		}
		return text(from, fd.End()), nil
	}
	return "", fmt.Errorf("no function %s", name)
}

// receiver returns the name of fd's receiver type, without a pointer.
func receiver(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	typ := fd.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// documents are the Markdown files, from the module root, whose go blocks
// are checked.
var documents = []string{"README.md", "docs/guide.md"}

// TestGoBlocksMatchExamples checks that every ```go block of the documents is
// marked with the example it shows, and shows it as it is.
func TestGoBlocksMatchExamples(t *testing.T) {
	for _, doc := range documents {
		checkGoBlocks(t, doc)
	}
}

func checkGoBlocks(t *testing.T, doc string) {
	md, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(doc)))
	if err != nil {
		t.Fatal(err)
	}
	blocks := goBlocks(t, doc, md)
	if len(blocks) == 0 {
		t.Fatalf("%s has no go block", doc)
	}
	for _, b := range blocks {
		m := marker.FindStringSubmatch(strings.TrimSpace(b.marker))
		if m == nil {
			t.Errorf("%s:%d: the go block is not preceded by a marker such as <!-- example: conditions/example_test.go ExampleSet -->", doc, b.line)
			continue
		}
		file := m[1]
		if !strings.HasSuffix(file, "_test.go") {
			t.Errorf("%s:%d: %s is not a test file: examples in the docs are compiled and run by go test", doc, b.line, file)
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			t.Errorf("%s:%d: %v", doc, b.line, err)
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
		if err != nil {
			t.Errorf("%s:%d: %v", doc, b.line, err)
			continue
		}
		var want []string
		for _, name := range strings.Fields(m[2]) {
			s, err := declText(fset, src, f, name)
			if err != nil {
				t.Errorf("%s:%d: %s: %v", doc, b.line, file, err)
				continue
			}
			want = append(want, s)
		}
		if got, w := normalize(b.text), normalize(strings.Join(want, "\n")); got != w {
			t.Errorf("%s:%d: the go block differs from %s%s; copy the example into the document.\ndocument:\n%s\nexample:\n%s",
				doc, b.line, file, m[2], b.text, strings.Join(want, "\n\n"))
		}
	}
}
