// Package readme holds the tests that keep the documentation true: the Go
// code blocks of README.md, docs/guide.md and package docs equal the
// compiled, tested examples they show, and every relative link resolves.
//
// Each ```go block of README.md and docs/guide.md is preceded by a marker
// comment
//
//	<!-- example: PATH NAME... -->
//
// naming a Go file by its path from the module root and, in order, the
// declarations whose text the block shows: "import" for the file's import
// declaration, F or T.M for a function or method with its doc comment, and
// F{} or T.M{} for the statements of its body alone. The block and the
// declarations are compared with runs of white space collapsed to one space.
//
// A Go code block in the package doc comment of a package outside internal/
// must be a contiguous part, white space collapsed likewise, of an Example
// function of that package's tests or of a function in one of its
// *example_test.go files (docs/architecture.md, "Documentation that cannot
// drift").
//
// A link in any Markdown file of the module to a path (not a URL) must name
// a file or folder that exists and, for a Markdown file with an anchor, one
// of its headings.
package readme
