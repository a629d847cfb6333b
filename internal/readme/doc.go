// Package readme holds the test that keeps the README's Go code blocks equal
// to the compiled, tested examples they show.
//
// Each ```go block in README.md is preceded by a marker comment
//
//	<!-- example: PATH NAME... -->
//
// naming a Go file by its path from the module root and, in order, the
// declarations whose text the block shows: "import" for the file's import
// declaration, F or T.M for a function or method with its doc comment, and
// F{} or T.M{} for the statements of its body alone. The block and the
// declarations are compared with runs of white space collapsed to one space.
package readme
